// Serving simulator throughput: simulated requests per second of wall time on one core (target
// >= 1M per minute, issue 14), and the step model's per-query cost. The service is the shipped
// DeepSeek-V3 decode scenario, 8 replicas (8 GPUs of the attention-DP EP group), Poisson
// arrivals at 30 requests/s, 512-token prompts (exponential) and 128-token answers. The rate is
// below capacity, so what is in flight stays put as the run grows (at most 250 requests over
// 10,000 arrivals, 274 over 100,000); at 60, once a token's all-to-all reached 12 nodes, the
// queue grew with the run (2,839 in flight over 20,000) and the bench measured a backlog.
#include <benchmark/benchmark.h>

#include <string>

#include "mhcsim/scenarios/load.h"
#include "mhcsim/serving/simulate.h"

namespace {
using namespace mhcsim;

const serving::Deployment& deployment() {
  static const serving::Deployment d(
      scenarios::load_scenario(std::string(MHCSIM_SOURCE_DIR) + "/scenarios/deepseek_v3_serve.toml"));
  return d;
}

void BM_SimulateRequests(benchmark::State& state) {
  const int64_t requests = state.range(0);
  serving::ServingConfig config;
  config.replicas = 8;
  config.slo_ttft_s = 2.0;
  config.slo_tpot_s = 0.05;
  const serving::LengthDistribution in{serving::LengthDistribution::Kind::Exponential, 512};
  const serving::LengthDistribution out{serving::LengthDistribution::Kind::Fixed, 128};
  int64_t done = 0;
  double in_flight = 0;
  for (auto _ : state) {
    serving::PoissonSource source(/*rate_per_s=*/30.0, requests, in, out, /*seed=*/1);
    const auto r = serving::simulate(deployment(), config, source);
    done += r.requests;
    in_flight = static_cast<double>(r.max_requests_in_flight);
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(done);  // items_per_second x 60 = simulated requests per minute
  state.counters["max_in_flight"] = in_flight;
}
BENCHMARK(BM_SimulateRequests)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_StepModelQuery(benchmark::State& state) {
  const auto& model = deployment().model();
  cost::BatchShape b{512, 512.0 * 2000, 96, 96.0 * 3000, 97};
  for (auto _ : state) {
    b.decode_seqs = b.decode_seqs >= 128 ? 1 : b.decode_seqs + 1;  // defeat caching
    benchmark::DoNotOptimize(model.seconds(b));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StepModelQuery);

void BM_StepModelBuild(benchmark::State& state) {
  const auto s = deployment().scenario();
  for (auto _ : state) {
    cost::ServingStepModel m(s);
    benchmark::DoNotOptimize(m);
  }
}
BENCHMARK(BM_StepModelBuild)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
