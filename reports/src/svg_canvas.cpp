#include "svg_canvas.h"

#include <fmt/format.h>

#include <array>
#include <stdexcept>

namespace mhcsim::reports::detail {

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    switch (ch) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

const char* palette(size_t i) {
  // Okabe & Ito (2008), "Color Universal Design": distinguishable under colour blindness.
  static constexpr std::array<const char*, 8> colours = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                                         "#CC79A7", "#56B4E9", "#F0E442", "#000000"};
  return colours[i % colours.size()];
}

std::string axis_title(const Axis& axis) { return fmt::format("{} ({})", axis.label, axis.unit); }

void require_text(const std::string& chart, const std::string& what, const std::string& text) {
  if (text.empty())
    throw std::invalid_argument(fmt::format("chart '{}': {} is missing (every plot says what it shows)", chart, what));
}

void require_axis(const std::string& chart, const char* which, const Axis& axis) {
  require_text(chart, fmt::format("{} axis label", which), axis.label);
  require_text(chart, fmt::format("{} axis unit", which), axis.unit);
}

SvgBuilder::SvgBuilder(double width, double height, const std::string& title) {
  // Presentation attributes only (no <style>), so the file renders the same inline in HTML
  // and standalone next to the Markdown.
  out_ = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"mhcsim-plot\" width=\"{0}\" "
      "height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" font-family=\"Helvetica, Arial, "
      "sans-serif\" font-size=\"12\">\n<title>{2}</title>\n"
      "<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>\n",
      width, height, xml_escape(title));
  text(width / 2, 20, title, "middle", "font-size=\"15\" font-weight=\"bold\"");
}

void SvgBuilder::rect(double x, double y, double w, double h, std::string_view fill, std::string_view extra) {
  out_ += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\" {}/>\n", x, y, w,
                      h, fill, extra);
}

void SvgBuilder::line(double x1, double y1, double x2, double y2, std::string_view stroke, std::string_view extra) {
  out_ += fmt::format("<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"{}\" {}/>\n", x1, y1, x2,
                      y2, stroke, extra);
}

void SvgBuilder::text(double x, double y, std::string_view content, std::string_view anchor, std::string_view extra) {
  out_ += fmt::format("<text x=\"{:.2f}\" y=\"{:.2f}\" text-anchor=\"{}\" {}>{}</text>\n", x, y, anchor, extra,
                      xml_escape(content));
}

void SvgBuilder::polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke, bool dashed) {
  std::string pts;
  for (const auto& [x, y] : points) pts += fmt::format("{:.2f},{:.2f} ", x, y);
  out_ += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"{}/>\n", pts, stroke,
                      dashed ? " stroke-dasharray=\"6 4\"" : "");
}

void SvgBuilder::circle(double x, double y, double r, std::string_view fill) {
  out_ += fmt::format("<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"{:.2f}\" fill=\"{}\"/>\n", x, y, r, fill);
}

std::string SvgBuilder::finish() { return std::move(out_) + "</svg>\n"; }

void draw_legend(SvgBuilder& svg, const std::vector<std::string>& names, double x, double y, bool vertical,
                 double max_x) {
  constexpr double kLine = 18, kSwatch = 12, kCharPx = 7;
  double cx = x, cy = y;
  for (size_t i = 0; i < names.size(); ++i) {
    const double entry_w = kSwatch + 6 + kCharPx * static_cast<double>(names[i].size()) + 16;
    if (!vertical && cx > x && cx + entry_w > max_x) {
      cx = x;
      cy += kLine;
    }
    svg.rect(cx, cy - kSwatch + 2, kSwatch, kSwatch, palette(i));
    svg.text(cx + kSwatch + 6, cy, names[i]);
    if (vertical)
      cy += kLine;
    else
      cx += entry_w;
  }
}

}  // namespace mhcsim::reports::detail
