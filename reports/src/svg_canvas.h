#pragma once
// What the three chart kinds share: an SVG element writer, axis scales with their ticks,
// axes drawn with labels and units, a legend, and the colour palette.
#include <string>
#include <string_view>
#include <vector>

#include "mhcsim/reports/svg.h"

namespace mhcsim::reports::detail {

std::string xml_escape(std::string_view text);
// Compact tick / value text: up to 4 significant digits, no trailing zeros ("0.25", "1536").
std::string format_tick(double value);
// Colour-blind-safe palette (Okabe-Ito), cycled.
const char* palette(size_t i);
// "label (unit)".
std::string axis_title(const Axis& axis);
// Throws std::invalid_argument naming the chart when a label or unit is empty.
void require_text(const std::string& chart, const std::string& what, const std::string& text);
void require_axis(const std::string& chart, const char* which, const Axis& axis);

// Plot area in pixels.
struct Frame {
  double left = 0, top = 0, width = 0, height = 0;
  double right() const { return left + width; }
  double bottom() const { return top + height; }
};

// Maps shown values (data x Axis::scale) to pixels, linearly or in log2.
class Scale {
 public:
  Scale(const Axis& axis, double data_lo, double data_hi, double px_lo, double px_hi, bool from_zero);
  double px(double data_value) const;
  std::vector<double> ticks() const;  // data values
  double scale() const { return scale_; }

 private:
  double map(double shown) const;
  bool log2_;
  double scale_;
  double lo_, hi_;  // shown units (log2 already applied for log axes)
  double px_lo_, px_hi_;
  double step_ = 1;  // linear tick step in shown units; log2 tick step in powers of two
};

class SvgBuilder {
 public:
  SvgBuilder(double width, double height, const std::string& title);
  void rect(double x, double y, double w, double h, std::string_view fill, std::string_view extra = {});
  void line(double x1, double y1, double x2, double y2, std::string_view stroke, std::string_view extra = {});
  // anchor: start | middle | end
  void text(double x, double y, std::string_view content, std::string_view anchor = "start",
            std::string_view extra = {});
  void polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke, bool dashed);
  void circle(double x, double y, double r, std::string_view fill);
  std::string finish();

 private:
  std::string out_;
};

void draw_x_axis(SvgBuilder& svg, const Scale& scale, const Axis& axis, const Frame& f);
void draw_y_axis(SvgBuilder& svg, const Scale& scale, const Axis& axis, const Frame& f);

// Legend swatches in palette order. Vertical: one entry per line from (x, y); horizontal:
// entries in a row, wrapping at max_x.
void draw_legend(SvgBuilder& svg, const std::vector<std::string>& names, double x, double y, bool vertical,
                 double max_x);

}  // namespace mhcsim::reports::detail
