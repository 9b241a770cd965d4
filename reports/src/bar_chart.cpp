#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "svg_canvas.h"

namespace mhcsim::reports {

using namespace detail;

std::string render_svg(const StackedBarChart& chart) {
  require_text("bar chart", "title", chart.title);
  require_text(chart.title, "category label", chart.category_label);
  require_axis(chart.title, "value", chart.value);
  if (chart.categories.empty() || chart.parts.empty() || chart.values.size() != chart.categories.size())
    throw std::invalid_argument(fmt::format("chart '{}': needs one value row per category", chart.title));
  double top = chart.limit;
  for (const auto& row : chart.values) {
    if (row.size() != chart.parts.size())
      throw std::invalid_argument(fmt::format("chart '{}': each bar needs {} parts", chart.title, chart.parts.size()));
    if (std::any_of(row.begin(), row.end(), [](double v) { return v < 0; }))
      throw std::invalid_argument(fmt::format("chart '{}': stacked parts must be >= 0", chart.title));
    top = std::max(top, std::accumulate(row.begin(), row.end(), 0.0));
  }

  constexpr double kWidth = 760, kHeight = 400, kLegendW = 190;
  const Frame f{80, 40, kWidth - 80 - kLegendW - 20, kHeight - 40 - 60};
  const Scale ys(chart.value, 0, top, f.bottom(), f.top, true);

  SvgBuilder svg(kWidth, kHeight, chart.title);
  draw_y_axis(svg, ys, chart.value, f);
  svg.line(f.left, f.bottom(), f.right(), f.bottom(), "#333333");
  const double slot = f.width / static_cast<double>(chart.categories.size());
  const double bar_w = std::min(80.0, slot * 0.7);
  // Label every k-th bar so the names never overlap (about 7 px per character).
  const size_t longest =
      std::max_element(chart.categories.begin(), chart.categories.end(), [](const auto& a, const auto& b) {
        return a.size() < b.size();
      })->size();
  const size_t every = std::max<size_t>(1, static_cast<size_t>((7.0 * static_cast<double>(longest) + 8) / slot) + 1);
  for (size_t c = 0; c < chart.categories.size(); ++c) {
    const double x = f.left + slot * (static_cast<double>(c) + 0.5);
    double base = 0;
    for (size_t p = 0; p < chart.parts.size(); ++p) {
      const double v = chart.values[c][p];
      const double y_top = ys.px(base + v);
      svg.rect(x - bar_w / 2, y_top, bar_w, ys.px(base) - y_top, palette(p));
      base += v;
    }
    if (c % every == 0) svg.text(x, f.bottom() + 18, chart.categories[c], "middle");
  }
  svg.text(f.left + f.width / 2, f.bottom() + 38, chart.category_label, "middle", "font-size=\"13\"");
  if (chart.limit > 0) {
    const double y = ys.px(chart.limit);
    svg.line(f.left, y, f.right(), y, "#D55E00", "stroke-width=\"2\" stroke-dasharray=\"6 4\"");
    svg.text(f.right() - 4, y - 5,
             fmt::format("{} {} {}", chart.limit_label, format_tick(chart.limit * chart.value.scale), chart.value.unit),
             "end", "fill=\"#D55E00\"");
  }
  draw_legend(svg, chart.parts, f.right() + 24, f.top + 12, true, kWidth);
  return svg.finish();
}

}  // namespace mhcsim::reports
