#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "svg_canvas.h"

namespace mhcsim::reports {

using namespace detail;

std::string render_svg(const TimelineChart& chart) {
  require_text("timeline", "title", chart.title);
  require_text(chart.title, "row label", chart.row_label);
  require_axis(chart.title, "time", chart.time);
  if (chart.rows.empty() || chart.kinds.empty())
    throw std::invalid_argument(fmt::format("chart '{}': needs rows and op kinds", chart.title));
  double t_lo = std::numeric_limits<double>::infinity(), t_hi = -t_lo;
  for (const auto& op : chart.ops) {
    if (op.row < 0 || static_cast<size_t>(op.row) >= chart.rows.size() || op.kind < 0 ||
        static_cast<size_t>(op.kind) >= chart.kinds.size() || !(op.end >= op.start))
      throw std::invalid_argument(
          fmt::format("chart '{}': op outside its rows / kinds or ending before it starts", chart.title));
    t_lo = std::min(t_lo, op.start);
    t_hi = std::max(t_hi, op.end);
  }
  if (chart.ops.empty()) t_lo = t_hi = 0;

  // Rows shrink for deep pipelines so the picture stays under ~900 px tall.
  const double row_h = std::clamp(640.0 / static_cast<double>(chart.rows.size()), 6.0, 22.0);
  constexpr double kWidth = 1100, kLeft = 90, kTop = 40;
  const double plot_h = row_h * static_cast<double>(chart.rows.size());
  const double legend_rows = 2;  // room for a wrapped legend line
  const double height = kTop + plot_h + 50 + 18 * legend_rows + 10;
  const Frame f{kLeft, kTop, kWidth - kLeft - 30, plot_h};
  const Scale ts(chart.time, t_lo, t_hi, f.left, f.right(), true);

  SvgBuilder svg(kWidth, height, chart.title);
  draw_x_axis(svg, ts, chart.time, f);
  const size_t every = row_h >= 11 ? 1 : static_cast<size_t>(std::ceil(11 / row_h));
  for (size_t r = 0; r < chart.rows.size(); ++r) {
    const double y = f.top + row_h * static_cast<double>(r);
    if (r % 2) svg.rect(f.left, y, f.width, row_h, "#f4f4f4");
    if (r % every == 0) svg.text(f.left - 8, y + row_h / 2 + 4, chart.rows[r], "end");
  }
  const double cx = 16, cy = f.top + plot_h / 2;
  svg.text(cx, cy, chart.row_label, "middle",
           fmt::format("font-size=\"13\" transform=\"rotate(-90 {:.2f} {:.2f})\"", cx, cy));
  for (const auto& op : chart.ops) {
    const double x0 = ts.px(op.start), x1 = ts.px(op.end);
    svg.rect(x0, f.top + row_h * op.row + 1, std::max(0.5, x1 - x0), row_h - 2, palette(op.kind));
  }
  draw_legend(svg, chart.kinds, f.left, f.bottom() + 62, false, kWidth - 20);
  return svg.finish();
}

}  // namespace mhcsim::reports
