// Analytic sweep throughput (issue 7 target: >= 1M points per minute on 2 cores). One
// iteration = one run_sweep over a DeepSeek-V3 training grid; items = points.
#include <benchmark/benchmark.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "mhcsim/sweep/evaluators.h"
#include "mhcsim/sweep/sweep.h"

using namespace mhcsim;

namespace {

std::string scenario_text() {
  std::ifstream in(std::string(MHCSIM_SOURCE_DIR) + "/scenarios/deepseek_v3_train.toml");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

sweep::Grid grid() {
  std::string mbs = "parallel.micro_batches=";
  for (int m = 64; m <= 256; m += 8) mbs += std::to_string(m) + (m < 256 ? "," : "");
  return sweep::Grid({sweep::parse_sweep_axis("parallel.pp=8,16,32"), sweep::parse_sweep_axis("parallel.ep=16,32,64"),
                      sweep::parse_sweep_axis("parallel.overlap=0.5,0.6,0.7,0.8,0.9,1.0"),
                      sweep::parse_sweep_axis("parallel.schedule=1f1b,zb1p,dualpipe,dualpipev"),
                      sweep::parse_sweep_axis(mbs)});
}

// items_per_second is the rate; points_per_minute restates it in the target's unit, from the
// wall-clock time of the whole timing loop (all threads together).
using Clock = std::chrono::steady_clock;
void per_minute(benchmark::State& state, int64_t points, Clock::time_point loop_start) {
  const double seconds = std::chrono::duration<double>(Clock::now() - loop_start).count();
  const double total = static_cast<double>(state.iterations() * points);
  state.SetItemsProcessed(state.iterations() * points);
  state.counters["points_per_minute"] = total * 60.0 / seconds;
}

void BM_AnalyticSweep(benchmark::State& state) {
  scenarios::ScenarioTemplate tpl(scenario_text(), "deepseek_v3_train.toml");
  const auto g = grid();
  const auto eval = sweep::analytic_evaluator();
  int64_t feasible = 0;
  const auto t0 = Clock::now();
  for (auto _ : state) {
    const auto r = sweep::run_sweep(tpl, g, eval, {static_cast<int>(state.range(0)), {}});
    feasible = r.feasible_count();
    benchmark::DoNotOptimize(r.values.data());
  }
  per_minute(state, g.size(), t0);
  state.counters["points"] = static_cast<double>(g.size());
  state.counters["feasible"] = static_cast<double>(feasible);
}
BENCHMARK(BM_AnalyticSweep)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The two halves of a point, one thread: building the scenario, and the cost model.
void BM_Instantiate(benchmark::State& state) {
  scenarios::ScenarioTemplate tpl(scenario_text(), "deepseek_v3_train.toml");
  const std::vector<int> handles = {tpl.prepare({"parallel.pp", "8"}), tpl.prepare({"parallel.ep", "32"})};
  const auto t0 = Clock::now();
  for (auto _ : state) benchmark::DoNotOptimize(tpl.instantiate(handles));
  per_minute(state, 1, t0);
}
BENCHMARK(BM_Instantiate);

void BM_AnalyticEvaluate(benchmark::State& state) {
  scenarios::ScenarioTemplate tpl(scenario_text(), "deepseek_v3_train.toml");
  const Scenario s = tpl.instantiate(std::vector<int>{});
  const auto eval = sweep::analytic_evaluator();
  const auto t0 = Clock::now();
  for (auto _ : state) benchmark::DoNotOptimize(eval.evaluate(s));
  per_minute(state, 1, t0);
}
BENCHMARK(BM_AnalyticEvaluate);

}  // namespace

BENCHMARK_MAIN();
