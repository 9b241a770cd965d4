// Axis scales, ticks and axis drawing. Linear ticks step by 1, 2 or 5 x 10^k (about six
// per axis); log2 ticks sit on powers of two.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "svg_canvas.h"

namespace mhcsim::reports::detail {
namespace {

constexpr int kTargetTicks = 6;

double nice_step(double span) {
  const double raw = span / kTargetTicks;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

}  // namespace

std::string format_tick(double value) {
  if (value == 0) return "0";
  const double mag = std::fabs(value);
  if (mag >= 1e6 || mag < 1e-3) return fmt::format("{:.3g}", value);
  std::string s = fmt::format("{:.4f}", value);
  // Keep at most 4 significant digits after the point, then trim zeros.
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s;
}

Scale::Scale(const Axis& axis, double data_lo, double data_hi, double px_lo, double px_hi, bool from_zero)
    : log2_(axis.log2), scale_(axis.scale), px_lo_(px_lo), px_hi_(px_hi) {
  if (!std::isfinite(data_lo) || !std::isfinite(data_hi) || data_lo > data_hi)
    throw std::invalid_argument(fmt::format("axis '{}': no finite data range", axis.label));
  double lo = data_lo * scale_, hi = data_hi * scale_;
  if (log2_) {
    if (lo <= 0) throw std::invalid_argument(fmt::format("axis '{}': log scale needs positive values", axis.label));
    lo = std::floor(std::log2(lo));
    hi = std::max(lo + 1, std::ceil(std::log2(hi)));
    step_ = std::max(1.0, std::ceil((hi - lo) / 10));  // at most ~10 power-of-two ticks
  } else {
    if (from_zero) lo = std::min(lo, 0.0);
    if (hi <= lo) hi = lo + (lo == 0 ? 1 : std::fabs(lo));
    step_ = nice_step(hi - lo);
    lo = std::floor(lo / step_) * step_;
    hi = std::ceil(hi / step_) * step_;
  }
  lo_ = lo;
  hi_ = hi;
}

double Scale::map(double shown) const { return px_lo_ + (shown - lo_) / (hi_ - lo_) * (px_hi_ - px_lo_); }

double Scale::px(double data_value) const {
  const double shown = data_value * scale_;
  return map(log2_ ? std::log2(shown) : shown);
}

std::vector<double> Scale::ticks() const {
  std::vector<double> out;
  const int n = static_cast<int>(std::lround((hi_ - lo_) / step_));
  for (int i = 0; i <= n; ++i) {
    const double shown = lo_ + i * step_;
    out.push_back((log2_ ? std::exp2(shown) : shown) / scale_);
  }
  return out;
}

void draw_x_axis(SvgBuilder& svg, const Scale& scale, const Axis& axis, const Frame& f) {
  svg.line(f.left, f.bottom(), f.right(), f.bottom(), "#333333");
  for (double t : scale.ticks()) {
    const double x = scale.px(t);
    svg.line(x, f.top, x, f.bottom(), "#e5e5e5");
    svg.line(x, f.bottom(), x, f.bottom() + 5, "#333333");
    svg.text(x, f.bottom() + 18, format_tick(t * scale.scale()), "middle");
  }
  svg.text(f.left + f.width / 2, f.bottom() + 38, axis_title(axis), "middle", "font-size=\"13\"");
}

void draw_y_axis(SvgBuilder& svg, const Scale& scale, const Axis& axis, const Frame& f) {
  svg.line(f.left, f.top, f.left, f.bottom(), "#333333");
  for (double t : scale.ticks()) {
    const double y = scale.px(t);
    svg.line(f.left, y, f.right(), y, "#e5e5e5");
    svg.line(f.left - 5, y, f.left, y, "#333333");
    svg.text(f.left - 8, y + 4, format_tick(t * scale.scale()), "end");
  }
  const double cx = f.left - 56, cy = f.top + f.height / 2;
  svg.text(cx, cy, axis_title(axis), "middle",
           fmt::format("font-size=\"13\" transform=\"rotate(-90 {:.2f} {:.2f})\"", cx, cy));
}

}  // namespace mhcsim::reports::detail
