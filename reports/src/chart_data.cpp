// The numbers each chart plots, as CSV beside its SVG (issue 17 item 8: a figure's data must be
// reusable without reading it off the plot). Values are in the axis's shown unit, which the
// header names, so the CSV and the picture read the same.
#include <fmt/format.h>

#include <sstream>

#include "mhcsim/reports/svg.h"
#include "mhcsim/reports/table.h"

namespace mhcsim::reports {

namespace {
std::string header(const Axis& a) { return fmt::format("{} ({})", a.label, a.unit); }

std::string csv_of(const Table& t) {
  std::ostringstream out;
  t.print_csv(out);
  return out.str();
}
}  // namespace

std::string to_csv(const LineChart& chart) {
  Table t(chart.title, {{"series", "series"}, {header(chart.x), header(chart.x)}, {header(chart.y), header(chart.y)}});
  for (const auto& s : chart.series)
    for (size_t k = 0; k < s.x.size() && k < s.y.size(); ++k)
      t.add_row({s.name, s.x[k] * chart.x.scale, s.y[k] * chart.y.scale});
  return csv_of(t);
}

std::string to_csv(const StackedBarChart& chart) {
  std::vector<Column> cols{{chart.category_label, chart.category_label}};
  for (const auto& part : chart.parts) {
    const std::string name = fmt::format("{} ({})", part, chart.value.unit);
    cols.push_back({name, name});
  }
  Table t(chart.title, std::move(cols));
  for (size_t c = 0; c < chart.categories.size() && c < chart.values.size(); ++c) {
    std::vector<Cell> row{chart.categories[c]};
    for (const double v : chart.values[c]) row.emplace_back(v * chart.value.scale);
    t.add_row(std::move(row));
  }
  return csv_of(t);
}

std::string to_csv(const TimelineChart& chart) {
  const std::string start = fmt::format("start ({})", chart.time.unit), end = fmt::format("end ({})", chart.time.unit);
  Table t(chart.title, {{chart.row_label, chart.row_label}, {"kind", "kind"}, {start, start}, {end, end}});
  for (const auto& op : chart.ops)
    t.add_row({chart.rows.at(static_cast<size_t>(op.row)), chart.kinds.at(static_cast<size_t>(op.kind)),
               op.start * chart.time.scale, op.end * chart.time.scale});
  return csv_of(t);
}

}  // namespace mhcsim::reports
