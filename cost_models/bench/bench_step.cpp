// Full step estimate (chunk prices, pipeline bubble, DP sync, MFU) for the shipped DeepSeek-V3
// training scenario (op-level chunk prices for the middle and the last stage), and the serving
// step for its decode scenario; the target is <= 5 us per configuration on one core.
#include <benchmark/benchmark.h>

#include <string>

#include "mhcsim/cost/serve.h"
#include "mhcsim/cost/step.h"
#include "mhcsim/scenarios/load.h"

namespace {

template <class Estimate>
void run(benchmark::State& state, const char* scenario, Estimate estimate) {
  const auto s = mhcsim::scenarios::load_scenario(std::string(MHCSIM_SOURCE_DIR "/scenarios/") + scenario);
  for (auto _ : state) {
    auto e = estimate(s);
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(state.iterations());
}

void BM_StepEstimateDeepSeekV3(benchmark::State& state) {
  run(state, "deepseek_v3_train.toml", mhcsim::cost::step_estimate);
}
BENCHMARK(BM_StepEstimateDeepSeekV3);

void BM_ServeEstimateDeepSeekV3Decode(benchmark::State& state) {
  run(state, "deepseek_v3_serve.toml", mhcsim::cost::serve_estimate);
}
BENCHMARK(BM_ServeEstimateDeepSeekV3Decode);

}  // namespace

BENCHMARK_MAIN();
