// Sweeps: the cross product, infeasible points kept with their reason, --top ranking,
// results independent of the thread count, outputs that never silently replace a file, and
// progress for a terminal and for a log, the capacity report's chunk time by op kind, the simulator's terms where the
// report and `sweep --simulate` show them, and the serving report's latency against load.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <variant>

#include <nlohmann/json.hpp>

#include "mhcsim/cost/step.h"
#include "mhcsim/error.h"
#include "mhcsim/reports/document.h"
#include "mhcsim/sim/simulate.h"
#include "mhcsim/sweep/capacity_report.h"
#include "mhcsim/sweep/evaluators.h"
#include "mhcsim/sweep/output.h"
#include "mhcsim/sweep/progress.h"
#include "mhcsim/sweep/sweep.h"

using namespace mhcsim;
using namespace mhcsim::sweep;
namespace fs = std::filesystem;

namespace {

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

scenarios::ScenarioTemplate deepseek() {
  return {read(std::string(MHCSIM_SOURCE_DIR) + "/scenarios/deepseek_v3_train.toml"), "deepseek_v3_train.toml"};
}

// A stand-in model: the step grows with PP and shrinks with EP; PP 4 with EP 8 "runs out of
// memory". It only has to be deterministic and to depend on the point.
Evaluator toy() {
  Evaluator e;
  e.name = "toy";
  e.metrics = {{{"step_time_s", "step (ms)", 3, 1e3}, false}, {{"tokens_per_s", "tokens/s", 0}, true}};
  e.evaluate = [](const Scenario& s) {
    const auto& p = s.parallel;
    const double step =
        static_cast<double>(p.pp) + 100.0 / static_cast<double>(p.ep) + 1e-3 * static_cast<double>(p.micro_batches);
    Evaluation r{"", {step, 1e6 / step}};
    if (p.pp == 4 && p.ep == 8) r.infeasible_reason = "out of memory (toy)";
    return r;
  };
  return e;
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("mhcsim_test_sweep_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST_CASE("sweep axes parse, and bad ones are input errors") {
  const auto a = parse_sweep_axis("parallel.pp=8,16,32");
  CHECK(a.key == "parallel.pp");
  CHECK(a.values == std::vector<std::string>{"8", "16", "32"});
  CHECK_THROWS_AS(parse_sweep_axis("parallel.pp"), InputError);
  CHECK_THROWS_AS(parse_sweep_axis("parallel.pp=8,,16"), InputError);
  CHECK_THROWS_AS(parse_sweep_axis("parallel.pp=8,8"), InputError);
  CHECK_THROWS_AS(Grid({a, a}), InputError);
}

// `--sweep parallel.pp=8,16 --set parallel.pp=4` ran PP 8 and 16 and dropped the --set unseen.
TEST_CASE("a key both swept and set is refused") {
  const Grid g({parse_sweep_axis("parallel.pp=8,16"), parse_sweep_axis("parallel.ep=8,64")});
  CHECK_NOTHROW(g.require_unset({{"parallel.zero_stage", "1"}, {"model.layers", "8"}}));
  CHECK_THROWS_WITH(g.require_unset({{"parallel.ep", "16"}}),
                    Catch::Contains("parallel.ep is both swept and given with --set"));
}

TEST_CASE("the cross product has every combination, last axis fastest") {
  auto tpl = deepseek();
  const Grid grid({parse_sweep_axis("parallel.pp=4,8,16"), parse_sweep_axis("parallel.ep=8,16,32,64")});
  REQUIRE(grid.size() == 12);
  const auto r = run_sweep(tpl, grid, toy(), {1, {}});
  REQUIRE(r.points == 12);
  std::vector<int32_t> idx;
  grid.indices(5, idx);
  CHECK(idx == std::vector<int32_t>{1, 1});  // pp 8, ep 16
  CHECK_THAT(r.value(5, 0), Catch::Matchers::WithinRel(8 + 100.0 / 16 + 0.12, 1e-12));
}

TEST_CASE("infeasible points are kept with their reason") {
  auto tpl = deepseek();
  // EP 512 exceeds the 256 routed experts (validation); PP 4 x EP 8 is out of memory (model).
  const Grid grid({parse_sweep_axis("parallel.pp=4,8"), parse_sweep_axis("parallel.ep=8,512")});
  const auto r = run_sweep(tpl, grid, toy(), {2, {}});
  REQUIRE(r.points == 4);
  CHECK(r.reasons[0] == "out of memory (toy)");
  CHECK_FALSE(std::isnan(r.value(0, 0)));  // the model's numbers stay with the infeasible point
  CHECK_THAT(r.reasons[1], Catch::Contains("parallel.ep") && Catch::Contains("256 routed experts"));
  CHECK(r.feasible(2));
  CHECK(r.feasible_count() == 1);
  const auto t = to_table(r, {}, 0, r.points, "sweep");
  CHECK(t.rows().size() == 4);
  CHECK(std::get<std::string>(t.rows()[1].back()) == r.reasons[1]);
}

TEST_CASE("a value wrong whatever the other axes say is bad input, not an infeasible point") {
  auto tpl = deepseek();
  // A word for an integer, a PP of 0, a schedule that does not exist: wrong at any point.
  for (const char* axis : {"parallel.pp=8,1-16", "parallel.pp=0,8", "parallel.schedule=1f1b,dualpipes"}) {
    CHECK_THROWS_AS(run_sweep(tpl, Grid({parse_sweep_axis(axis)}), toy(), {1, {}}), InputError);
    CHECK_THROWS_WITH(run_sweep(tpl, Grid({parse_sweep_axis(axis)}), toy(), {1, {}}),
                      Catch::StartsWith("--sweep: parallel."));
  }
  // PP 4096 is in range; that it exceeds the 61 layers is about this point (another axis could
  // sweep the layers), so it stays a point with its reason.
  const auto r = run_sweep(tpl, Grid({parse_sweep_axis("parallel.pp=8,4096")}), toy(), {1, {}});
  CHECK(r.feasible(0));
  CHECK_THAT(r.reasons[1], Catch::Contains("exceeds 61 layers"));
}

TEST_CASE("top-K ranking: feasible points by a metric, in its direction") {
  auto tpl = deepseek();
  const Grid grid({parse_sweep_axis("parallel.pp=4,8,16"), parse_sweep_axis("parallel.ep=8,16,32,64")});
  const auto r = run_sweep(tpl, grid, toy(), {2, {}});
  const auto top = top_points(r, "step_time", 3);
  REQUIRE(top.size() == 3);
  // Best: pp 4 with the largest EP; pp 4 x ep 8 is infeasible and must not appear.
  CHECK(top[0] == 3);
  for (size_t i = 1; i < top.size(); ++i) CHECK(r.value(top[i - 1], 0) <= r.value(top[i], 0));
  for (auto p : top_points(r, "step_time_s", 100)) CHECK(p != 0);
  CHECK(top_points(r, "step_time", 100).size() == 11);
  CHECK(top_points(r, "tokens_per_s", 1) == std::vector<int64_t>{3});  // higher is better
  CHECK_THROWS_WITH(top_points(r, "latency", 3), Catch::Contains("expected one of step_time_s"));
}

TEST_CASE("results do not depend on the number of threads") {
  std::string mbs = "parallel.micro_batches=";
  for (int m = 32; m < 32 + 2 * 60; m += 2) mbs += std::to_string(m) + (m + 2 < 32 + 2 * 60 ? "," : "");
  const Grid grid(
      {parse_sweep_axis("parallel.pp=4,8,7"), parse_sweep_axis("parallel.ep=8,16,64"), parse_sweep_axis(mbs)});
  REQUIRE(grid.size() > 500);  // several chunks per worker
  auto a = deepseek();
  auto b = deepseek();
  int64_t last_done = -1;
  const auto one = run_sweep(a, grid, toy(), {1, {}});
  const auto four = run_sweep(b, grid, toy(), {4, [&](int64_t done, int64_t) { last_done = done; }});
  CHECK(last_done == grid.size());
  CHECK(one.reasons == four.reasons);
  CHECK(one.value_index == four.value_index);
  for (size_t i = 0; i < one.values.size(); ++i)
    if (!std::isnan(one.values[i])) CHECK(one.values[i] == four.values[i]);
  CHECK(one.feasible_count() < one.points);  // PP 7 breaks DualPipe: kept as infeasible
}

TEST_CASE("errors that are not about the input stop the sweep") {
  auto tpl = deepseek();
  Evaluator e = toy();
  e.evaluate = [](const Scenario&) -> Evaluation { throw std::runtime_error("model bug"); };
  CHECK_THROWS_WITH(run_sweep(tpl, Grid({parse_sweep_axis("parallel.pp=4,8")}), e, {2, {}}), "model bug");
}

TEST_CASE("CSV and JSON outputs: complete, typed, atomic, --force to replace") {
  TempDir tmp;
  auto tpl = deepseek();
  const auto r =
      run_sweep(tpl, Grid({parse_sweep_axis("parallel.pp=4,8"), parse_sweep_axis("parallel.ep=8,16")}), toy(), {2, {}});
  const std::string prefix = (tmp.path / "out").string();
  write_outputs(r, {{"scenario", "deepseek-v3-train"}}, prefix, false);
  const std::string csv = read(prefix + ".csv");
  CHECK(csv.rfind("parallel.pp,parallel.ep,feasible,step_time_s,tokens_per_s,reason\n", 0) == 0);
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 5);
  CHECK(csv.find("4,8,false,") != std::string::npos);
  CHECK(csv.find(",true,") != std::string::npos);
  const auto doc = nlohmann::json::parse(read(prefix + ".json"));
  CHECK(doc["meta"]["scenario"] == "deepseek-v3-train");
  CHECK(doc["feasible_points"] == 3);
  REQUIRE(doc["points"].size() == 4);
  CHECK(doc["points"][1]["parallel.ep"] == 16);  // numbers, not strings
  CHECK(doc["points"][0]["reason"] == "out of memory (toy)");
  CHECK(doc["points"][0]["feasible"] == false);  // a boolean, not 0

  CHECK(doc["written_by"].get<std::string>().rfind("mhcsim sweep ", 0) == 0);  // what --force may replace

  CHECK_THROWS_AS(write_outputs(r, {}, prefix, false), InputError);  // exists: --force needed
  write_outputs(r, {}, prefix, true);                                // mhcsim wrote both: --force replaces them
  CHECK(nlohmann::json::parse(read(prefix + ".json"))["points"].size() == 4);
  // A JSON that is not mhcsim's, and a CSV whose JSON is not: --force leaves them alone.
  std::ofstream(prefix + ".json") << "keep";
  CHECK_THROWS_WITH(write_outputs(r, {}, prefix, true), Catch::Contains("was not written by mhcsim"));
  CHECK(read(prefix + ".json") == "keep");
  size_t entries = 0;  // no temporaries left behind
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(tmp.path)) ++entries;
  CHECK(entries == 2);
}

TEST_CASE("the capacity report splits the slowest chunk's time by op kind, in HTML and Markdown") {
  auto tpl = deepseek();
  const Scenario s = tpl.instantiate({});
  const reports::Document doc = capacity_report(s, tpl);
  const reports::Table* table = nullptr;
  bool figure = false;
  for (const auto& section : doc.sections)
    for (const auto& block : section.blocks) {
      if (const auto* t = std::get_if<reports::Table>(&block); t && t->title() == "Time per chunk by op kind") {
        CHECK(section.title == "Step time");
        table = t;
      }
      if (const auto* f = std::get_if<reports::Figure>(&block); f && f->name == "step_chunk_kinds") figure = true;
    }
  REQUIRE(table != nullptr);
  CHECK(figure);
  // The four op kinds in cost::OpKind order, DeepSeek-V3's EP all-to-all, then the total.
  const auto& rows = table->rows();
  REQUIRE(rows.size() == 6);
  const std::vector<std::string> kinds = {"gemm",          "attention",     "memory-bound",
                                          "communication", "EP all-to-all", "total"};
  double sum_ms = 0, sum_pct = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    CHECK(std::get<std::string>(rows[i][0]) == kinds[i]);
    const double sec = std::get<double>(rows[i][2]), pct = std::get<double>(rows[i][3]);
    CHECK(sec >= 0);
    if (i + 1 < rows.size())
      sum_ms += sec, sum_pct += pct;
    else
      CHECK_THAT(sec, Catch::Matchers::WithinRel(sum_ms, 1e-12));
  }
  CHECK_THAT(sum_pct, Catch::Matchers::WithinRel(100.0, 1e-9));
  const auto kind_seconds = cost::step_estimate(s).chunk.kind_seconds;
  CHECK(std::get<double>(rows[0][2]) == kind_seconds[0]);
  CHECK(kind_seconds[0] > 0);  // GEMMs dominate a DeepSeek-V3 chunk
  CHECK(std::get<double>(rows[0][3]) > 25);

  const std::string md = reports::to_markdown(doc), html = reports::to_html(doc);
  CHECK_THAT(md, Catch::Contains("Time per chunk by op kind") && Catch::Contains("figures/step_chunk_kinds.svg"));
  CHECK_THAT(html, Catch::Contains("Time per chunk by op kind"));
  for (const auto& k : kinds) {
    INFO(k);
    CHECK_THAT(md, Catch::Contains("| " + k + " |"));
    CHECK_THAT(html, Catch::Contains(">" + k + "<"));
  }
}

// The one definition of the step's terms (sim/step_terms.h): the report's step breakdown and
// `sweep --simulate` show the simulator's pacing rank, as `simulate` does. They showed the rank
// with the largest idle, with its exposed communication taken off its bubble a second time:
// on DeepSeek-V3 a simulated bar of 15.25 s beside a simulated step of 17.43 s, and no bubble.
TEST_CASE("the report's step breakdown and sweep --simulate use the simulator's pacing rank") {
  auto tpl = deepseek();
  const Scenario s = tpl.instantiate({});
  const auto simulated = sim::simulate(s).stats;
  const auto terms = simulated.terms();
  REQUIRE(terms.bubble_seconds > 0);

  const reports::Document doc = capacity_report(s, tpl);
  const reports::Figure* step = nullptr;
  for (const auto& section : doc.sections)
    for (const auto& block : section.blocks)
      if (const auto* f = std::get_if<reports::Figure>(&block); f && f->name == "step") step = f;
  REQUIRE(step != nullptr);
  // model, compute, exposed communication, exposed DP sync, bubble (s): one row per model.
  std::map<std::string, std::vector<double>> bars;
  std::istringstream csv(step->csv);
  std::string line;
  std::getline(csv, line);  // header
  while (std::getline(csv, line)) {
    std::istringstream row(line);
    std::string model, cell;
    std::getline(row, model, ',');
    while (std::getline(row, cell, ',')) bars[model].push_back(std::stod(cell));
  }
  REQUIRE(bars["simulated"].size() == 4);
  REQUIRE(bars["analytic"].size() == 4);
  double simulated_sum = 0, analytic_sum = 0;
  for (const double v : bars["simulated"]) simulated_sum += v;
  for (const double v : bars["analytic"]) analytic_sum += v;
  CHECK_THAT(simulated_sum, Catch::Matchers::WithinRel(simulated.step_seconds, 1e-9));
  CHECK_THAT(analytic_sum, Catch::Matchers::WithinRel(cost::step_estimate(s).step_seconds, 1e-9));
  CHECK_THAT(bars["simulated"][3], Catch::Matchers::WithinRel(terms.bubble_seconds, 1e-9));
  CHECK_THAT(bars["simulated"][1], Catch::Matchers::WithinRel(terms.exposed_comm_seconds, 1e-9));

  // sweep --simulate: the bubble column is the pacing rank's share of the simulated step.
  const Evaluator e = simulated_evaluator();
  const Evaluation point = e.evaluate(s);
  size_t bubble = e.metrics.size(), step_time = e.metrics.size();
  for (size_t i = 0; i < e.metrics.size(); ++i) {
    if (e.metrics[i].column.key == "bubble_fraction") bubble = i;
    if (e.metrics[i].column.key == "step_time_s") step_time = i;
  }
  REQUIRE(bubble < e.metrics.size());
  REQUIRE(step_time < e.metrics.size());
  CHECK_THAT(point.values[step_time], Catch::Matchers::WithinRel(simulated.step_seconds, 1e-9));
  CHECK_THAT(point.values[bubble], Catch::Matchers::WithinRel(terms.bubble_seconds / simulated.step_seconds, 1e-9));
}

// sweep --simulate on a serving point: the simulated iteration (sim/serving.h) in place of
// `step`'s, the throughput scaled by the same ratio.
TEST_CASE("sweep --simulate prices a serving point by its simulated iteration") {
  scenarios::ScenarioTemplate tpl{read(std::string(MHCSIM_SOURCE_DIR) + "/scenarios/deepseek_v3_serve.toml"),
                                  "deepseek_v3_serve.toml"};
  const Scenario s = tpl.instantiate({});
  const Evaluator simulated = simulated_evaluator(), analytic = analytic_evaluator();
  const Evaluation a = analytic.evaluate(s), b = simulated.evaluate(s);
  const double iteration = sim::simulate(s).iteration.step_seconds();
  for (size_t i = 0; i < simulated.metrics.size(); ++i) {
    const std::string key = simulated.metrics[i].column.key;
    INFO(key);
    if (key == "step_time_s") CHECK_THAT(b.values[i], Catch::Matchers::WithinRel(iteration, 1e-12));
    if (key == "tokens_per_s")
      CHECK_THAT(b.values[i] * iteration, Catch::Matchers::WithinRel(a.values[i] * a.values[0], 1e-12));
  }
  REQUIRE(simulated.metrics[0].column.key == "step_time_s");
}

// The serving report's load section: the request-level simulator at rates rising past one
// replica's capacity. Below capacity the output throughput follows the offered rate; past it,
// the throughput levels off and the p99 time to first token grows with the backlog.
TEST_CASE("the serving report shows latency percentiles against load, with the knee past capacity") {
  scenarios::ScenarioTemplate tpl{read(std::string(MHCSIM_SOURCE_DIR) + "/scenarios/deepseek_v3_serve.toml"),
                                  "deepseek_v3_serve.toml"};
  const Scenario s = tpl.instantiate({});
  const reports::Document doc = capacity_report(s, tpl);
  const reports::Table* runs = nullptr;
  std::vector<std::string> figures;
  for (const auto& section : doc.sections)
    for (const auto& block : section.blocks) {
      if (const auto* t = std::get_if<reports::Table>(&block); t && t->title() == "runs by arrival rate") {
        CHECK(section.title == "Serving under load (request-level simulation)");
        runs = t;
      }
      if (const auto* f = std::get_if<reports::Figure>(&block)) figures.push_back(f->name);
    }
  REQUIRE(runs != nullptr);
  CHECK(std::find(figures.begin(), figures.end(), "serve_latency_vs_load") != figures.end());
  CHECK(std::find(figures.begin(), figures.end(), "serve_throughput_vs_p99") != figures.end());

  const auto column = [&](const std::string& key) {
    const auto& cols = runs->columns();
    const auto it = std::find_if(cols.begin(), cols.end(), [&](const auto& c) { return c.key == key; });
    REQUIRE(it != cols.end());
    std::vector<double> v;
    for (const auto& row : runs->rows()) v.push_back(std::get<double>(row[static_cast<size_t>(it - cols.begin())]));
    return v;
  };
  const auto rate = column("rate_per_s"), ttft_p99 = column("ttft_p99_s"), out = column("output_tokens_per_s_per_gpu");
  REQUIRE(rate.size() >= 4);
  for (size_t i = 1; i < rate.size(); ++i) CHECK(rate[i] > rate[i - 1]);
  // At the lowest rate (20% of the flood throughput) the replica keeps up: throughput ~ rate.
  CHECK_THAT(out[1] / out[0], Catch::Matchers::WithinRel(rate[1] / rate[0], 0.15));
  // The last two rates are past capacity: throughput rises by less than the rate did, and the
  // p99 TTFT at the highest rate is many times the lowest rate's.
  const size_t n = rate.size();
  CHECK(out[n - 1] / out[n - 2] < rate[n - 1] / rate[n - 2]);
  CHECK(ttft_p99[n - 1] > 10 * ttft_p99[0]);
  CHECK(ttft_p99[n - 1] > ttft_p99[n - 2]);
}

TEST_CASE("streamed sweeps: blocks in point order, the same results, and the same top K") {
  std::string mbs = "parallel.micro_batches=";
  for (int m = 32; m < 32 + 2 * 60; m += 2) mbs += std::to_string(m) + (m + 2 < 32 + 2 * 60 ? "," : "");
  const Grid grid(
      {parse_sweep_axis("parallel.pp=4,8,7"), parse_sweep_axis("parallel.ep=8,16,64"), parse_sweep_axis(mbs)});
  auto a = deepseek();
  auto b = deepseek();
  const auto whole = run_sweep(a, grid, toy(), {1, {}});
  // Blocks of 7 points, at most 2 ahead of the sink, over 4 workers; the top K kept as they come.
  int64_t next = 0, blocks = 0;
  std::vector<std::string> reasons;
  TopPoints top("step_time", 5);
  stream_sweep(b, grid, toy(), {4, {}},
               [&](const SweepResult& block, int64_t first) {
                 CHECK(first == next);
                 CHECK(block.points <= 7);
                 next += block.points;
                 ++blocks;
                 reasons.insert(reasons.end(), block.reasons.begin(), block.reasons.end());
                 top.add(block, first);
               },
               {7, 2, {}});
  CHECK(next == grid.size());
  CHECK(blocks == (grid.size() + 6) / 7);
  CHECK(reasons == whole.reasons);
  const auto want = top_points(whole, "step_time", 5);
  const auto got = top.order();
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) CHECK(top.kept().value(got[i], 0) == whole.value(want[i], 0));
  CHECK(top.feasible_points() == whole.feasible_count());
  // A sink that fails stops the sweep; its error leaves after the workers have stopped.
  auto c = deepseek();
  CHECK_THROWS_WITH(stream_sweep(c, grid, toy(), {3, {}},
                                 [](const SweepResult&, int64_t first) {
                                   if (first > 0) throw std::runtime_error("disk full");
                                 },
                                 {16, 2, {}}),
                    "disk full");
}

TEST_CASE("progress: a bar at a terminal; in a log, a line per interval and none for a short run") {
  std::ostringstream bar;
  auto draw = progress_reporter(bar, true, "sweep");
  draw(35, 100);
  draw(100, 100);
  CHECK(bar.str() ==
        "\r[##########--------------------]  35%  35/100 points"
        "\r[##############################] 100%  100/100 points\n");

  std::ostringstream quiet;  // ends long before the 10 s interval
  auto short_run = progress_reporter(quiet, false, "search");
  short_run(50, 100);
  short_run(100, 100);
  CHECK(quiet.str().empty());

  std::ostringstream log;
  auto long_run = progress_reporter(log, false, "search", "points", std::chrono::milliseconds(0));
  long_run(25, 100);
  long_run(100, 100);
  long_run(100, 100);  // a second end (search's last call) adds nothing
  const auto text = log.str();
  CHECK(text.find("search: 25% (25/100 points) after ") == 0);
  CHECK(text.find("search: 100% (100/100 points) after ") != std::string::npos);
  CHECK(std::count(text.begin(), text.end(), '\n') == 2);
  CHECK(text.find('\r') == std::string::npos);
}
