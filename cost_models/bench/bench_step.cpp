// Full step estimate (chunk prices, pipeline bubble, DP sync, MFU) for the shipped DeepSeek-V3
// training scenario; issue 3's target is <= 2 us per configuration on one core.
#include <benchmark/benchmark.h>

#include "mhcsim/cost/step.h"
#include "mhcsim/scenarios/load.h"

namespace {

void BM_StepEstimateDeepSeekV3(benchmark::State& state) {
  const auto s = mhcsim::scenarios::load_scenario(MHCSIM_SOURCE_DIR "/scenarios/deepseek_v3_train.toml");
  for (auto _ : state) {
    auto e = mhcsim::cost::step_estimate(s);
    benchmark::DoNotOptimize(e);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StepEstimateDeepSeekV3);

}  // namespace

BENCHMARK_MAIN();
