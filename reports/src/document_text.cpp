#include "document_text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace mhcsim::reports::detail {

TextGrid table_grid(const Table& table) {
  TextGrid g;
  for (const auto& c : table.columns()) g.header.push_back(c.header);
  g.numeric.assign(table.columns().size(), true);
  for (const auto& row : table.rows()) {
    std::vector<std::string> text;
    for (size_t c = 0; c < row.size(); ++c) {
      const auto& col = table.columns()[c];
      text.push_back(format_cell(row[c], col.precision, col.text_scale));
      if (std::holds_alternative<std::string>(row[c])) g.numeric[c] = false;
    }
    g.rows.push_back(std::move(text));
  }
  return g;
}

TextGrid quantity_grid(const QuantityList& list) {
  TextGrid g{{"quantity", "value", "unit"}, {}, {false, true, false}};
  for (const auto& q : list.quantities)
    g.rows.push_back({q.label, format_cell(q.value, q.precision, q.text_scale), q.unit});
  return g;
}

std::string slug(const std::string& title) {
  std::string out;
  for (unsigned char ch : title) {
    if (std::isalnum(ch))
      out += static_cast<char>(std::tolower(ch));
    else if (!out.empty() && out.back() != '-')
      out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "section" : out;
}

void require_figure_name(const Figure& figure) {
  const bool ok = !figure.name.empty() && std::all_of(figure.name.begin(), figure.name.end(), [](unsigned char ch) {
    return std::islower(ch) || std::isdigit(ch) || ch == '_' || ch == '-';
  });
  if (!ok) throw std::invalid_argument(fmt::format("figure name '{}' is not a file stem ([a-z0-9_-]+)", figure.name));
}

}  // namespace mhcsim::reports::detail
