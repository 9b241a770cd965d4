// Configuration search throughput (issue 18 targets, one core): >= 50k configurations per
// second, and the whole space of the shipped DeepSeek-V3 training scenario on 2048 GPUs within
// 10 s. One iteration = one run_search on one thread; `configs_per_second` counts the points
// that divide (each checked against HBM, priced when it fits), `priced_per_second` the priced.
#include <benchmark/benchmark.h>

#include <string>

#include "mhcsim/scenarios/load.h"
#include "mhcsim/search/search.h"

using namespace mhcsim;

namespace {

void BM_SearchDeepSeekV3(benchmark::State& state) {
  auto base = scenarios::load_scenario(std::string(MHCSIM_SOURCE_DIR) + "/scenarios/deepseek_v3_train.toml");
  search::SearchOptions o;
  o.axes.gpus = {state.range(0)};
  o.limits.global_batch_seqs = search::scenario_global_batch(base);
  o.threads = 1;
  search::SearchResult r;
  for (auto _ : state) {
    r = search::run_search(base, o);
    benchmark::DoNotOptimize(r.found.top.data());
  }
  const auto it = static_cast<double>(state.iterations());
  state.counters["configs_per_second"] =
      benchmark::Counter(it * static_cast<double>(r.found.dividing_points), benchmark::Counter::kIsRate);
  state.counters["priced_per_second"] =
      benchmark::Counter(it * static_cast<double>(r.found.priced_points), benchmark::Counter::kIsRate);
  state.counters["space_points"] = static_cast<double>(r.space_points);
  state.counters["dividing_points"] = static_cast<double>(r.found.dividing_points);
  state.counters["priced_points"] = static_cast<double>(r.found.priced_points);
  state.counters["best_tokens_per_s"] = r.found.top.empty() ? 0 : r.found.top[0].tokens_per_s;
}
BENCHMARK(BM_SearchDeepSeekV3)->Arg(2048)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
