#include "mhcsim/reports/table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <stdexcept>

namespace mhcsim::reports {
namespace {

std::string number_text(double v, int precision, bool significant) {
  if (significant) return fmt::format("{:.{}g}", v, std::max(1, precision));
  if (std::fabs(v) >= 1e15) return fmt::format("{:.4g}", v);
  return fmt::format("{:.{}f}", v, precision);
}

std::string cell_text(const Cell& c, int precision, double scale, bool significant = false) {
  return std::visit(
      [&](const auto& v) -> std::string {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>)
          return "-";
        else if constexpr (std::is_same_v<T, bool>)
          return v ? "yes" : "no";
        else if constexpr (std::is_same_v<T, int64_t>)
          return scale == 1.0 ? fmt::format("{}", v)
                              : number_text(static_cast<double>(v) * scale, precision, significant);
        else if constexpr (std::is_same_v<T, double>)
          return std::isnan(v) ? "-" : number_text(v * scale, precision, significant);  // nan: as JSON's null
        else
          return v;
      },
      c);
}

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

}  // namespace

nlohmann::json cell_json(const Cell& c) {
  return std::visit(
      [](const auto& v) -> nlohmann::json {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, std::monostate>)
          return nullptr;
        else
          return v;
      },
      c);
}

std::string format_cell(const Cell& cell, int precision, double scale, bool significant_digits) {
  return cell_text(cell, precision, scale, significant_digits);
}

Table::Table(std::string title, std::vector<Column> columns) : title_(std::move(title)), columns_(std::move(columns)) {}

Table& Table::add_row(std::vector<Cell> cells) {
  if (cells.size() != columns_.size())
    throw std::logic_error(
        fmt::format("table '{}': row has {} cells, expected {}", title_, cells.size(), columns_.size()));
  rows_.push_back(std::move(cells));
  return *this;
}

void Table::print_text(std::ostream& out, bool header) const {
  std::vector<std::vector<std::string>> text(rows_.size());
  std::vector<size_t> width(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) width[c] = columns_[c].header.size();
  for (size_t r = 0; r < rows_.size(); ++r)
    for (size_t c = 0; c < columns_.size(); ++c) {
      text[r].push_back(
          cell_text(rows_[r][c], columns_[c].precision, columns_[c].text_scale, columns_[c].significant_digits));
      width[c] = std::max(width[c], text[r][c].size());
    }
  // Text columns align left, numbers right (nccl-tests habit).
  std::vector<bool> left(columns_.size(), false);
  for (size_t c = 0; c < columns_.size(); ++c)
    left[c] = !rows_.empty() && std::holds_alternative<std::string>(rows_[0][c]);
  auto cell = [&](const std::string& s, size_t c) {
    return left[c] ? fmt::format(" {:<{}}", s, width[c]) : fmt::format(" {:>{}}", s, width[c]);
  };
  if (header) {
    out << "# " << title_ << "\n#";
    for (size_t c = 0; c < columns_.size(); ++c) out << cell(columns_[c].header, c);
    out << "\n";
  }
  for (const auto& row : text) {
    out << " ";
    for (size_t c = 0; c < columns_.size(); ++c) out << cell(row[c], c);
    out << "\n";
  }
}

void Table::print_csv(std::ostream& out, bool header) const {
  for (size_t c = 0; header && c < columns_.size(); ++c)
    out << (c ? "," : "") << csv_escape(columns_[c].key) << (c + 1 == columns_.size() ? "\n" : "");
  for (const auto& row : rows_) {
    for (size_t c = 0; c < columns_.size(); ++c) {
      const auto* s = std::get_if<std::string>(&row[c]);
      out << (c ? "," : "") << (s ? csv_escape(*s) : cell_json(row[c]).is_null() ? "" : cell_json(row[c]).dump());
    }
    out << "\n";
  }
}

nlohmann::json Table::to_json() const {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& row : rows_) {
    nlohmann::json obj = nlohmann::json::object();
    for (size_t c = 0; c < columns_.size(); ++c) obj[columns_[c].key] = cell_json(row[c]);
    rows.push_back(std::move(obj));
  }
  return rows;
}

void print_quantities(std::ostream& out, const std::string& title, const std::vector<Quantity>& quantities) {
  size_t label_w = 0;
  for (const auto& q : quantities) label_w = std::max(label_w, q.label.size());
  out << "# " << title << "\n";
  for (const auto& q : quantities)
    out << fmt::format("  {:<{}}  {:>14} {}\n", q.label, label_w, cell_text(q.value, q.precision, q.text_scale),
                       q.unit);
}

nlohmann::json quantities_to_json(const std::vector<Quantity>& quantities) {
  nlohmann::json obj = nlohmann::json::object();
  for (const auto& q : quantities) obj[q.key] = cell_json(q.value);
  return obj;
}

}  // namespace mhcsim::reports
