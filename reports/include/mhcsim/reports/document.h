#pragma once
// A report as data: sections of paragraphs, key/value quantities, tables and figures (inline
// SVG). Two writers render the same document: one self-contained HTML file (inline CSS and
// SVG, no script, no network) and a Markdown twin whose figures are .svg files beside it.
#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "mhcsim/reports/table.h"

namespace mhcsim::reports {

struct Paragraph {
  std::string text;
};

struct QuantityList {
  std::string title;
  std::vector<Quantity> quantities;
};

struct Figure {
  std::string name;     // file stem for the Markdown twin: [a-z0-9_-]+
  std::string caption;  // what the plot shows and where its numbers come from
  std::string svg;      // from render_svg
  std::string csv;      // the plotted numbers (to_csv), written as figures/<name>.csv
};

using Block = std::variant<Paragraph, QuantityList, Table, Figure>;

struct Section {
  std::string title;
  std::vector<Block> blocks;
};

struct Document {
  std::string title;
  std::string subtitle;  // scenario and tool version
  std::vector<Section> sections;
};

std::string to_html(const Document& doc);
// Figures are referenced as `<figure_dir>/<name>.svg`, relative to the Markdown file.
std::string to_markdown(const Document& doc, const std::string& figure_dir = "figures");

// Throws InputError(option, ...) unless `dir` can take a report: new, or with `force` a directory
// mhcsim wrote (core/atomic_write.h; a report from before the marker file counts too).
void require_report_directory(const std::filesystem::path& dir, bool force, const char* option = "-o");
// Writes report.html, report.md, figures/<name>.svg and figures/<name>.csv into `dir` atomically (see
// write_directory_atomically). Throws std::invalid_argument on a bad figure name.
void write_report(const Document& doc, const std::filesystem::path& dir, bool force);

}  // namespace mhcsim::reports
