#pragma once
// One fixed list of fields feeds the text table, the CSV and the JSON (calculon's
// get_stats_fields habit). Text tables follow nccl-tests: '#'-commented header, aligned
// columns, the unit in the column name.
#include <iosfwd>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace mhcsim::reports {

struct Column {
  std::string key;          // JSON / CSV key, unit included: "step_time_s", "hbm_bytes"
  std::string header;       // text header, unit in parentheses: "step (ms)"
  int precision = 3;        // digits after the point for doubles in the text table
  double text_scale = 1.0;  // text shows value * text_scale (e.g. 1e3 for s -> ms)
  // precision counts significant digits instead: for values spanning many decades (a max-rate
  // search's rates, 1e-5 to 1e3 requests/s), which fixed digits would print as 0.000
  bool significant_digits = false;
};

// bool prints "yes"/"no" in tables and stays a boolean in JSON.
using Cell = std::variant<std::monostate, bool, int64_t, double, std::string>;

// A cell as the text table prints it: value x scale with `precision` digits after the point (or
// significant ones), "-" when empty; past 1e15, 4 significant digits (1e300 is not 301 digits).
std::string format_cell(const Cell& cell, int precision = 3, double scale = 1.0, bool significant_digits = false);
// A cell as JSON: null when empty, else its value (raw units).
nlohmann::json cell_json(const Cell& cell);

class Table {
 public:
  Table(std::string title, std::vector<Column> columns);
  Table& add_row(std::vector<Cell> cells);  // size must match the columns
  const std::string& title() const { return title_; }
  const std::vector<Column>& columns() const { return columns_; }
  const std::vector<std::vector<Cell>>& rows() const { return rows_; }

  // header=false: rows only, for a table printed in blocks (each block aligns its own columns).
  void print_text(std::ostream& out, bool header = true) const;
  void print_csv(std::ostream& out, bool header = true) const;  // header=false: rows only (blocks)
  nlohmann::json to_json() const;                               // array of objects keyed by Column::key, raw units

 private:
  std::string title_;
  std::vector<Column> columns_;
  std::vector<std::vector<Cell>> rows_;
};

// Key/value summary ("what-if" answers): one row per quantity with its unit.
struct Quantity {
  std::string key;    // JSON key with unit: "kv_bytes_per_token"
  std::string label;  // people's label: "KV cache per token"
  Cell value;
  std::string unit;  // printed unit after scaling: "GiB", "ms", "B"
  double text_scale = 1.0;
  int precision = 3;
};

void print_quantities(std::ostream& out, const std::string& title, const std::vector<Quantity>& quantities);
nlohmann::json quantities_to_json(const std::vector<Quantity>& quantities);

}  // namespace mhcsim::reports
