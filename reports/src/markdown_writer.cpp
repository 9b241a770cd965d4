// The Markdown twin of the HTML report: the same tables as GitHub tables, the same plots as
// .svg files referenced relatively; and the writer of the report directory.
#include <fmt/format.h>

#include "document_text.h"
#include "mhcsim/atomic_write.h"
#include "mhcsim/reports/document.h"

namespace mhcsim::reports {
namespace {

std::string md_escape(const std::string& text) {
  std::string out;
  for (char ch : text) {
    if (ch == '|' || ch == '\\' || ch == '*' || ch == '_' || ch == '`') out += '\\';
    out += ch == '\n' ? ' ' : ch;
  }
  return out;
}

void grid_markdown(std::string& out, const detail::TextGrid& g, const std::string& caption) {
  if (!caption.empty()) out += fmt::format("**{}**\n\n", md_escape(caption));
  out += "|";
  for (const auto& h : g.header) out += fmt::format(" {} |", md_escape(h));
  out += "\n|";
  for (bool numeric : g.numeric) out += numeric ? "---:|" : "---|";
  out += "\n";
  for (const auto& row : g.rows) {
    out += "|";
    for (const auto& cell : row) out += fmt::format(" {} |", md_escape(cell));
    out += "\n";
  }
  out += "\n";
}

struct MarkdownBlock {
  std::string& out;
  const std::string& figure_dir;
  void operator()(const Paragraph& p) const { out += md_escape(p.text) + "\n\n"; }
  void operator()(const QuantityList& q) const { grid_markdown(out, detail::quantity_grid(q), q.title); }
  void operator()(const Table& t) const { grid_markdown(out, detail::table_grid(t), t.title()); }
  void operator()(const Figure& f) const {
    detail::require_figure_name(f);
    out += fmt::format("![{0}]({1}/{2}.svg)\n\n*{0}*", md_escape(f.caption), figure_dir, f.name);
    out += f.csv.empty() ? "\n\n" : fmt::format(" [data (CSV)]({}/{}.csv)\n\n", figure_dir, f.name);
  }
};

// A report written before reports listed their files in kOutputMarker (or carried it at all):
// report.html, report.md and a figures/ folder of .svg plots and their .csv data, nothing
// else. Only such a folder may be replaced without a listing.
bool unmarked_report(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_regular_file(dir / "report.html", ec)) return false;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const auto name = it->path().filename();
    if (name == "report.html" || name == "report.md" || name == kOutputMarker) continue;
    if (name != "figures" || !it->is_directory(ec)) return false;
    for (fs::directory_iterator f(it->path(), ec); !ec && f != end; f.increment(ec)) {
      const auto ext = f->path().extension();
      if ((ext != ".svg" && ext != ".csv") || !f->is_regular_file(ec)) return false;
    }
  }
  return !ec;
}

}  // namespace

std::string to_markdown(const Document& doc, const std::string& figure_dir) {
  std::string out = fmt::format("# {}\n\n{}\n\n", md_escape(doc.title), md_escape(doc.subtitle));
  for (const auto& s : doc.sections) out += fmt::format("- [{}](#{})\n", md_escape(s.title), detail::slug(s.title));
  out += "\n";
  for (const auto& s : doc.sections) {
    out += fmt::format("## {}\n\n", md_escape(s.title));
    for (const auto& b : s.blocks) std::visit(MarkdownBlock{out, figure_dir}, b);
  }
  return out;
}

void require_report_directory(const std::filesystem::path& dir, bool force, const char* option) {
  require_output_directory(dir, force, option, unmarked_report);
}

void write_report(const Document& doc, const std::filesystem::path& dir, bool force) {
  const std::string html = to_html(doc), markdown = to_markdown(doc, "figures");
  write_directory_atomically(
      dir, force,
      [&](const std::filesystem::path& tmp) {
        write_file_atomically(tmp / "report.html", html);
        write_file_atomically(tmp / "report.md", markdown);
        std::filesystem::create_directory(tmp / "figures");
        for (const auto& s : doc.sections)
          for (const auto& b : s.blocks)
            if (const auto* f = std::get_if<Figure>(&b)) {
              write_file_atomically(tmp / "figures" / (f->name + ".svg"),
                                    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + f->svg);
              if (!f->csv.empty()) write_file_atomically(tmp / "figures" / (f->name + ".csv"), f->csv);
            }
      },
      unmarked_report);
}

}  // namespace mhcsim::reports
