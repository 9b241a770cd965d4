#pragma once
// Plot primitives for reports: each chart is a value type rendered to one inline SVG string
// (no script, no external font or style), so the same text goes into the HTML report and,
// as a file, next to the Markdown twin. A chart must say what it shows: render_* throws
// std::invalid_argument when a title, an axis label or an axis unit is missing.
#include <cstdint>
#include <string>
#include <vector>

#include "mhcsim/reports/document.h"

namespace mhcsim::reports {

struct Axis {
  std::string label;   // "context length"
  std::string unit;    // "tokens", "GiB", "ms", "%"
  bool log2 = false;   // log scale with ticks at powers of two (sizes, lengths, counts)
  double scale = 1.0;  // shown value = data value * scale (e.g. 1/kGiB for bytes -> GiB)
};

struct Series {
  std::string name;  // legend entry
  std::vector<double> x;
  std::vector<double> y;
  bool dashed = false;  // e.g. an analytic curve next to simulated points
};

struct LineChart {
  std::string title;
  Axis x;
  Axis y;
  std::vector<Series> series;
  bool y_from_zero = true;  // linear y axes start at 0 unless the data goes below
};

// One bar per category, each split into the same ordered parts (legend).
struct StackedBarChart {
  std::string title;
  std::string category_label;      // what the bars are, e.g. "pipeline rank"
  Axis value;                      // the stacked quantity, e.g. {"memory per GPU", "GiB"}
  std::vector<std::string> parts;  // legend, bottom to top
  std::vector<std::string> categories;
  std::vector<std::vector<double>> values;  // [category][part], data units
  double limit = 0;                         // optional reference line (e.g. HBM capacity); 0 = none
  std::string limit_label;
};

// Gantt chart: one row per rank, one coloured box per op, coloured by kind (legend).
struct TimelineOp {
  int32_t row = 0;
  int32_t kind = 0;  // index into TimelineChart::kinds
  double start = 0;  // data units of the time axis
  double end = 0;
};

struct TimelineChart {
  std::string title;
  Axis time;                       // e.g. {"time", "ms", false, 1e3} for seconds -> ms
  std::string row_label;           // "pipeline rank"
  std::vector<std::string> rows;   // row names, top to bottom
  std::vector<std::string> kinds;  // legend: "forward", "backward", ...
  std::vector<TimelineOp> ops;
};

std::string render_svg(const LineChart& chart);
std::string render_svg(const StackedBarChart& chart);
std::string render_svg(const TimelineChart& chart);

// What a chart plots as CSV, one row per point (series, x, y), bar (category, parts) or op (row,
// kind, start, end), in the axes' shown units, which the header names.
std::string to_csv(const LineChart& chart);
std::string to_csv(const StackedBarChart& chart);
std::string to_csv(const TimelineChart& chart);

// A report figure of a chart: its SVG and its data.
template <class Chart>
Figure figure(std::string name, std::string caption, const Chart& chart) {
  return {std::move(name), std::move(caption), render_svg(chart), to_csv(chart)};
}

}  // namespace mhcsim::reports
