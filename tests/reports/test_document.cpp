// Report documents: the HTML is self-contained (no script, no network), the Markdown twin
// references its figures relatively, and report directories are written atomically with
// --force semantics.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "mhcsim/atomic_write.h"
#include "mhcsim/error.h"
#include "mhcsim/reports/document.h"
#include "mhcsim/reports/svg.h"
#include "mhcsim/reports/table.h"
#include "xml_check.h"

using namespace mhcsim::reports;
namespace fs = std::filesystem;

namespace {

Document sample() {
  LineChart c;
  c.title = "bubble vs micro-batches";
  c.x = {"micro-batches", "count"};
  c.y = {"bubble", "ms"};
  c.series.push_back({"1F1B", {8, 16}, {3, 3}});
  Table t("step time", {{"part", "part", 0}, {"time_s", "time (ms)", 2, 1e3}});
  t.add_row({std::string("compute"), 0.0125}).add_row({std::string("a|b"), 0.5});
  Document d{"Capacity <plan>", "scenario x", {}};
  d.sections.push_back(
      {"Model & hardware",
       {Paragraph{"GPUs & nodes"}, QuantityList{"summary", {{"hbm_bytes", "HBM per GPU", 80.0, "GiB"}}}}});
  d.sections.push_back({"Pipeline", {t, figure("bubble", "bubble of 1F1B", c)}});
  return d;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("mhcsim_test_doc_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("HTML report: self-contained, escaped, every figure inline with its caption") {
  const std::string html = to_html(sample());
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("https://") == std::string::npos);
  CHECK(html.find("<link") == std::string::npos);
  CHECK(html.find("<h1>Capacity &lt;plan&gt;</h1>") != std::string::npos);
  CHECK(html.find("href=\"#model-hardware\"") != std::string::npos);
  CHECK(html.find("<td class=\"num\">12.50</td>") != std::string::npos);  // s shown in ms
  CHECK(html.find("<th>time (ms)</th>") != std::string::npos);
  CHECK(html.find("<figcaption>bubble of 1F1B <a href=\"figures/bubble.csv\">data (CSV)</a></figcaption>") !=
        std::string::npos);
  // The body (after <head>) balances as XML: void elements only live in <head>.
  const std::string body = html.substr(html.find("<body>"));
  CHECK(mhcsim::test::xml_problem(body.substr(0, body.find("</html>"))).empty());
}

TEST_CASE("Markdown twin: same tables, figures as relative .svg links") {
  const std::string md = to_markdown(sample(), "figures");
  CHECK(md.rfind("# Capacity <plan>", 0) == 0);
  CHECK(md.find("| part | time (ms) |\n|---|---:|\n| compute | 12.50 |") != std::string::npos);
  CHECK(md.find("| a\\|b | 500.00 |") != std::string::npos);
  CHECK(md.find("![bubble of 1F1B](figures/bubble.svg)") != std::string::npos);
  CHECK(md.find("| HBM per GPU | 80.000 | GiB |") != std::string::npos);
}

TEST_CASE("report directory: written whole, refused without --force, replaced with it") {
  TempDir tmp;
  const fs::path dir = tmp.path / "report";
  write_report(sample(), dir, false);
  CHECK(fs::is_regular_file(dir / "report.html"));
  CHECK(fs::is_regular_file(dir / "report.md"));
  const std::string svg = read(dir / "figures" / "bubble.svg");
  CHECK(mhcsim::test::xml_problem(svg).empty());
  CHECK(svg.find(">bubble (ms)</text>") != std::string::npos);
  const std::string csv = read(dir / "figures" / "bubble.csv");  // the plotted numbers beside it
  CHECK(csv.rfind("series,micro-batches (count),bubble (ms)\n", 0) == 0);

  CHECK_THROWS_AS(write_report(sample(), dir, false), mhcsim::InputError);
  std::ofstream(dir / "report.md") << "edited";  // mhcsim wrote it: --force may replace it
  write_report(sample(), dir, true);
  CHECK(read(dir / "report.md").rfind("# ", 0) == 0);
  CHECK(fs::is_regular_file(dir / "report.html"));
  CHECK(fs::is_regular_file(dir / mhcsim::kOutputMarker));
  size_t entries = 0;  // no temporary or backup directories left beside it
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(tmp.path)) ++entries;
  CHECK(entries == 1);
}

TEST_CASE("report: --force replaces only a report directory, never one mhcsim did not write") {
  TempDir tmp;
  const fs::path mine = tmp.path / "notes";
  fs::create_directory(mine);
  std::ofstream(mine / "thesis.tex") << "years of work";
  CHECK_THROWS_WITH(write_report(sample(), mine, true), Catch::Contains("was not written by mhcsim"));
  CHECK_THROWS_AS(require_report_directory(mine, true), mhcsim::InputError);
  CHECK(read(mine / "thesis.tex") == "years of work");

  // A report from before the marker (report.html, report.md, figures/*.svg only) is one.
  const fs::path old = tmp.path / "old_report";
  fs::create_directories(old / "figures");
  std::ofstream(old / "report.html") << "old";
  std::ofstream(old / "report.md") << "old";
  std::ofstream(old / "figures" / "bubble.svg") << "<svg/>";
  write_report(sample(), old, true);
  CHECK(fs::is_regular_file(old / mhcsim::kOutputMarker));
  write_report(sample(), old, true);  // marked now: replaced while it holds only what mhcsim wrote
  // A file the user put in it since is kept, and so is the report around it.
  std::ofstream(old / "figures" / "notes.txt") << "mine";
  CHECK_THROWS_WITH(write_report(sample(), old, true), Catch::Contains("holds 'figures/notes.txt'"));
  CHECK(read(old / "figures" / "notes.txt") == "mine");
  CHECK(fs::is_regular_file(old / "report.html"));
  fs::remove(old / "figures" / "notes.txt");
  CHECK_NOTHROW(write_report(sample(), old, true));

  // The same layout plus a file of the user's is not a report any more.
  const fs::path mixed = tmp.path / "mixed";
  fs::create_directories(mixed / "figures");
  std::ofstream(mixed / "report.html") << "old";
  std::ofstream(mixed / "data.csv") << "1,2";
  CHECK_THROWS_AS(write_report(sample(), mixed, true), mhcsim::InputError);
  CHECK(fs::exists(mixed / "data.csv"));

  // A marker from before the listing: replaced while the folder is a report's layout only.
  const fs::path listless = tmp.path / "listless";
  fs::create_directories(listless / "figures");
  std::ofstream(listless / mhcsim::kOutputMarker) << "written by mhcsim 0.9\n";
  std::ofstream(listless / "report.html") << "old";
  std::ofstream(listless / "figures" / "bubble.csv") << "1,2";
  std::ofstream(listless / "notes.txt") << "mine";
  CHECK_THROWS_WITH(write_report(sample(), listless, true), Catch::Contains("did not list what it wrote"));
  CHECK(read(listless / "notes.txt") == "mine");
  fs::remove(listless / "notes.txt");
  write_report(sample(), listless, true);
  CHECK(read(listless / "report.html") != "old");
}

TEST_CASE("a failure while filling leaves the old output and no temporary behind") {
  TempDir tmp;
  const fs::path dir = tmp.path / "out";
  fs::create_directory(dir);
  std::ofstream(dir / "keep.txt") << "old";
  std::ofstream(dir / mhcsim::kOutputMarker) << "written by mhcsim\nkeep.txt\n";  // ours: --force may replace it
  CHECK_THROWS_AS(mhcsim::write_directory_atomically(dir, true,
                                                     [](const fs::path& p) {
                                                       std::ofstream(p / "half.txt") << "x";
                                                       throw std::runtime_error("disk full");
                                                     }),
                  std::runtime_error);
  CHECK(fs::exists(dir / "keep.txt"));
  CHECK_FALSE(fs::exists(dir / "half.txt"));
  size_t entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(tmp.path)) ++entries;
  CHECK(entries == 1);
}

TEST_CASE("figure names must be file stems") {
  auto d = sample();
  std::get<Figure>(d.sections[1].blocks[1]).name = "../x";
  CHECK_THROWS_AS(to_markdown(d), std::invalid_argument);
}

TEST_CASE("table cells: fixed digits at the column's precision, significant ones where it asks, none past 1e15") {
  CHECK(format_cell(0.5, 3) == "0.500");
  CHECK(format_cell(1234.5678, 1) == "1234.6");
  CHECK(format_cell(0.0, 3) == "0.000");
  CHECK(format_cell(0.009343, 1) == "0.0");      // a 0.009% delta is 0.0%
  CHECK(format_cell(1e300, 3) == "1e+300");      // not 301 digits
  CHECK(format_cell(-3e-4, 2, 1e3) == "-0.30");  // scaled first (s -> ms)
  CHECK(format_cell(int64_t{7}, 0) == "7");
  CHECK(format_cell(2e-5, 4, 1.0, true) == "2e-05");  // a rate a max-rate search went down to
  CHECK(format_cell(0.3398, 4, 1.0, true) == "0.3398");
  CHECK(format_cell(1234.5678, 4, 1.0, true) == "1235");
}
