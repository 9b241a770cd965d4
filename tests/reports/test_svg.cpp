// Plot primitives: well-formed SVG, every plot labelled (title, axis labels with units,
// legend), geometry that follows the data, and refusal of unlabelled charts.
#include <catch2/catch.hpp>

#include <regex>
#include <stdexcept>
#include <string>

#include "mhcsim/reports/svg.h"
#include "xml_check.h"

using namespace mhcsim::reports;

namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

LineChart kv_chart() {
  LineChart c;
  c.title = "KV cache per sequence";
  c.x = {"context length", "tokens", true};
  c.y = {"KV cache", "GiB", false, 1.0 / (1024.0 * 1024 * 1024)};
  c.series.push_back({"MLA", {1024, 8192, 131072}, {7.2e7, 5.8e8, 9.2e9}});
  c.series.push_back({"GQA & MHA <8 groups>", {1024, 8192, 131072}, {3.4e8, 2.7e9, 4.3e10}, true});
  return c;
}

}  // namespace

TEST_CASE("line chart: well-formed, titled, axes with units, legend per series") {
  const std::string svg = render_svg(kv_chart());
  CHECK(mhcsim::test::xml_problem(svg).empty());
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(svg.find("<title>KV cache per sequence</title>") != std::string::npos);
  CHECK(svg.find(">context length (tokens)</text>") != std::string::npos);
  CHECK(svg.find(">KV cache (GiB)</text>") != std::string::npos);
  CHECK(svg.find(">MLA</text>") != std::string::npos);
  // Series names are escaped, not injected as markup.
  CHECK(svg.find("GQA &amp; MHA &lt;8 groups&gt;") != std::string::npos);
  CHECK(count(svg, "<polyline") == 2);
  CHECK(count(svg, "stroke-dasharray") == 1);
  CHECK(count(svg, "<circle") == 6);
}

TEST_CASE("line chart: log2 axis ticks sit on powers of two, in shown units") {
  const std::string svg = render_svg(kv_chart());
  // 1024 .. 131072 tokens: ticks 2^10 .. 2^17, labels as plain numbers.
  for (const char* tick : {">1024</text>", ">2048</text>", ">131072</text>"})
    CHECK(svg.find(tick) != std::string::npos);
  CHECK(svg.find(">1000</text>") == std::string::npos);
}

TEST_CASE("line chart: x positions follow the data linearly") {
  LineChart c;
  c.title = "bubble";
  c.x = {"micro-batches", "count"};
  c.y = {"bubble", "%"};
  c.series.push_back({"1F1B", {0, 5, 10}, {0, 50, 100}});
  const std::string svg = render_svg(c);
  std::smatch m;
  REQUIRE(std::regex_search(svg, m, std::regex("points=\"([0-9.]+),[0-9.]+ ([0-9.]+),[0-9.]+ ([0-9.]+),")));
  const double x0 = std::stod(m[1]), x1 = std::stod(m[2]), x2 = std::stod(m[3]);
  CHECK_THAT(x1 - x0, Catch::Matchers::WithinRel(x2 - x1, 1e-6));
  CHECK(x2 > x0);
}

TEST_CASE("charts without a title, axis label or unit are refused") {
  auto c = kv_chart();
  SECTION("unit") {
    c.y.unit.clear();
    CHECK_THROWS_AS(render_svg(c), std::invalid_argument);
  }
  SECTION("label") {
    c.x.label.clear();
    CHECK_THROWS_AS(render_svg(c), std::invalid_argument);
  }
  SECTION("title") {
    c.title.clear();
    CHECK_THROWS_AS(render_svg(c), std::invalid_argument);
  }
  SECTION("mismatched series") {
    c.series[0].y.pop_back();
    CHECK_THROWS_AS(render_svg(c), std::invalid_argument);
  }
  SECTION("log axis with zero") {
    c.series[0].x[0] = 0;
    CHECK_THROWS_AS(render_svg(c), std::invalid_argument);
  }
}

TEST_CASE("stacked bars: one rect per part, heights proportional, limit line labelled") {
  StackedBarChart b;
  b.title = "memory per GPU";
  b.category_label = "pipeline rank";
  b.value = {"memory", "GiB"};
  b.parts = {"weights", "activations"};
  b.categories = {"0", "1"};
  b.values = {{10, 30}, {20, 20}};
  b.limit = 80;
  b.limit_label = "HBM";
  const std::string svg = render_svg(b);
  CHECK(mhcsim::test::xml_problem(svg).empty());
  CHECK(svg.find(">memory (GiB)</text>") != std::string::npos);
  CHECK(svg.find(">pipeline rank</text>") != std::string::npos);
  CHECK(svg.find(">HBM 80 GiB</text>") != std::string::npos);
  // Bar rects carry the palette colours; the 30 GiB part is three times the 10 GiB one.
  std::regex bar("height=\"([0-9.]+)\" fill=\"#0072B2\" />");
  std::vector<double> blue;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), bar); it != std::sregex_iterator(); ++it)
    blue.push_back(std::stod((*it)[1]));
  REQUIRE(blue.size() == 3);  // two bars + one legend swatch (12 px)
  CHECK_THAT(blue[1], Catch::Matchers::WithinRel(2 * blue[0], 1e-3));
  b.values[1][0] = -1;
  CHECK_THROWS_AS(render_svg(b), std::invalid_argument);
}

TEST_CASE("timeline: one box per op, a row label per rank, legend of kinds") {
  TimelineChart t;
  t.title = "pipeline step";
  t.time = {"time", "ms", false, 1e3};
  t.row_label = "pipeline rank";
  t.rows = {"rank 0", "rank 1"};
  t.kinds = {"forward", "backward"};
  t.ops = {{0, 0, 0.0, 0.001}, {1, 0, 0.001, 0.002}, {1, 1, 0.002, 0.004}, {0, 1, 0.004, 0.006}};
  const std::string svg = render_svg(t);
  CHECK(mhcsim::test::xml_problem(svg).empty());
  CHECK(svg.find(">time (ms)</text>") != std::string::npos);
  CHECK(svg.find(">rank 1</text>") != std::string::npos);
  CHECK(svg.find(">backward</text>") != std::string::npos);
  CHECK(svg.find(">6</text>") != std::string::npos);  // 6 ms at the end of the axis
  CHECK(count(svg, "fill=\"#E69F00\"") == 3);         // two backward ops + legend swatch
  t.ops.push_back({2, 0, 0, 1});
  CHECK_THROWS_AS(render_svg(t), std::invalid_argument);
}
