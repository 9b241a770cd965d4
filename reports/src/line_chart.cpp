#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

#include "svg_canvas.h"

namespace mhcsim::reports {

using namespace detail;

std::string render_svg(const LineChart& chart) {
  require_text("line chart", "title", chart.title);
  require_axis(chart.title, "x", chart.x);
  require_axis(chart.title, "y", chart.y);
  if (chart.series.empty()) throw std::invalid_argument(fmt::format("chart '{}': no series", chart.title));

  double x_lo = std::numeric_limits<double>::infinity(), x_hi = -x_lo, y_lo = x_lo, y_hi = -x_lo;
  std::vector<std::string> names;
  for (const auto& s : chart.series) {
    require_text(chart.title, "series name", s.name);
    if (s.x.size() != s.y.size() || s.x.empty())
      throw std::invalid_argument(
          fmt::format("chart '{}': series '{}' needs as many x as y values (>= 1)", chart.title, s.name));
    x_lo = std::min(x_lo, *std::min_element(s.x.begin(), s.x.end()));
    x_hi = std::max(x_hi, *std::max_element(s.x.begin(), s.x.end()));
    y_lo = std::min(y_lo, *std::min_element(s.y.begin(), s.y.end()));
    y_hi = std::max(y_hi, *std::max_element(s.y.begin(), s.y.end()));
    names.push_back(s.name);
  }

  constexpr double kWidth = 760, kHeight = 400, kLegendW = 190;
  const Frame f{80, 40, kWidth - 80 - kLegendW - 20, kHeight - 40 - 60};
  const Scale xs(chart.x, x_lo, x_hi, f.left, f.right(), false);
  const Scale ys(chart.y, y_lo, y_hi, f.bottom(), f.top, chart.y_from_zero);

  SvgBuilder svg(kWidth, kHeight, chart.title);
  draw_x_axis(svg, xs, chart.x, f);
  draw_y_axis(svg, ys, chart.y, f);
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const auto& s = chart.series[i];
    std::vector<std::pair<double, double>> pts;
    for (size_t k = 0; k < s.x.size(); ++k) pts.emplace_back(xs.px(s.x[k]), ys.px(s.y[k]));
    if (pts.size() > 1) svg.polyline(pts, palette(i), s.dashed);
    if (pts.size() <= 40)  // markers show where the values are (and a one-point series at all)
      for (const auto& [x, y] : pts) svg.circle(x, y, 3, palette(i));
  }
  draw_legend(svg, names, f.right() + 24, f.top + 12, true, kWidth);
  return svg.finish();
}

}  // namespace mhcsim::reports
