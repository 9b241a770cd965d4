// One self-contained HTML file: inline CSS and SVG, no script, no external resource, so it
// opens the same from a CI artifact, an e-mail or an air-gapped machine.
#include <fmt/format.h>

#include "document_text.h"
#include "mhcsim/reports/document.h"
#include "svg_canvas.h"

namespace mhcsim::reports {
namespace {

using detail::xml_escape;

constexpr const char* kStyle = R"(
body { font-family: Helvetica, Arial, sans-serif; margin: 2em auto; max-width: 1140px;
       color: #222; line-height: 1.4; padding: 0 1em; }
h1 { margin-bottom: 0.2em; } .subtitle { color: #555; margin-top: 0; }
h2 { border-bottom: 1px solid #ccc; padding-bottom: 0.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.92em; }
caption { text-align: left; font-weight: bold; padding-bottom: 0.3em; }
th, td { border: 1px solid #d0d0d0; padding: 0.25em 0.6em; }
th { background: #f2f2f2; text-align: left; } td.num { text-align: right;
     font-variant-numeric: tabular-nums; }
figure { margin: 1em 0; } figure svg { max-width: 100%; height: auto; border: 1px solid #e0e0e0; }
figcaption { color: #444; font-size: 0.9em; margin-top: 0.3em; }
nav ul { columns: 2; }
)";

void grid_html(std::string& out, const detail::TextGrid& g, const std::string& caption) {
  out += "<table>\n";
  if (!caption.empty()) out += fmt::format("<caption>{}</caption>\n", xml_escape(caption));
  out += "<tr>";
  for (const auto& h : g.header) out += fmt::format("<th>{}</th>", xml_escape(h));
  out += "</tr>\n";
  for (const auto& row : g.rows) {
    out += "<tr>";
    for (size_t c = 0; c < row.size(); ++c)
      out += fmt::format("<td{}>{}</td>", g.numeric[c] ? " class=\"num\"" : "", xml_escape(row[c]));
    out += "</tr>\n";
  }
  out += "</table>\n";
}

struct HtmlBlock {
  std::string& out;
  void operator()(const Paragraph& p) const { out += fmt::format("<p>{}</p>\n", xml_escape(p.text)); }
  void operator()(const QuantityList& q) const { grid_html(out, detail::quantity_grid(q), q.title); }
  void operator()(const Table& t) const { grid_html(out, detail::table_grid(t), t.title()); }
  void operator()(const Figure& f) const {
    const std::string data = f.csv.empty() ? "" : fmt::format(" <a href=\"figures/{}.csv\">data (CSV)</a>", f.name);
    out += fmt::format("<figure id=\"fig-{}\">\n{}<figcaption>{}{}</figcaption>\n</figure>\n", f.name, f.svg,
                       xml_escape(f.caption), data);
  }
};

}  // namespace

std::string to_html(const Document& doc) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>{0}</title>\n<style>{1}</style>\n</head>\n<body>\n<h1>{0}</h1>\n"
      "<p class=\"subtitle\">{2}</p>\n<nav><ul>\n",
      xml_escape(doc.title), kStyle, xml_escape(doc.subtitle));
  for (const auto& s : doc.sections)
    out += fmt::format("<li><a href=\"#{}\">{}</a></li>\n", detail::slug(s.title), xml_escape(s.title));
  out += "</ul></nav>\n";
  for (const auto& s : doc.sections) {
    out += fmt::format("<section id=\"{}\">\n<h2>{}</h2>\n", detail::slug(s.title), xml_escape(s.title));
    for (const auto& b : s.blocks) std::visit(HtmlBlock{out}, b);
    out += "</section>\n";
  }
  return out + "</body>\n</html>\n";
}

}  // namespace mhcsim::reports
