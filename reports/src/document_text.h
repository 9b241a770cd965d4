#pragma once
// The text both document writers show for tables and quantities, so HTML and Markdown print
// the same numbers with the same units.
#include <string>
#include <vector>

#include "mhcsim/reports/document.h"

namespace mhcsim::reports::detail {

struct TextGrid {
  std::vector<std::string> header;  // units in the headers
  std::vector<std::vector<std::string>> rows;
  std::vector<bool> numeric;  // per column: right-aligned
};

TextGrid table_grid(const Table& table);
// Three columns: quantity, value, unit.
TextGrid quantity_grid(const QuantityList& list);
// Anchor id from a section title: lower case, [a-z0-9-].
std::string slug(const std::string& title);
// Throws std::invalid_argument unless the figure name is a safe file stem ([a-z0-9_-]+).
void require_figure_name(const Figure& figure);

}  // namespace mhcsim::reports::detail
