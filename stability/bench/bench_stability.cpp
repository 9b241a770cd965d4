// Throughput of the random study (issue 19 target: 10k samples of a 60-mapping, n = 4 model in
// under 1 s on one core). One iteration = one random_study of `samples` draws; items = samples.
// The variants: HC and mHC at t_max = 20 in fp32 (the paper's comparison), and all three with
// the bf16 Sinkhorn as well.
#include <benchmark/benchmark.h>

#include "mhcsim/stability/study.h"

using namespace mhcsim::stability;

namespace {

void run(benchmark::State& state, const std::vector<Variant>& variants) {
  const int64_t samples = state.range(0);
  const RandomModel model{4, 60, kIdentityBias, kPaperHcNoise};
  for (auto _ : state) {
    const auto r = random_study(model, samples, 1, variants);
    benchmark::DoNotOptimize(r.back().peak.median);
  }
  // items_per_second = samples per second of CPU time (one thread): the target's "one core"
  // on a shared machine, where wall-clock time also counts other processes.
  state.SetItemsProcessed(state.iterations() * samples);
}

void BM_HcVsMhcFp32(benchmark::State& state) { run(state, {{MappingKind::HC, 0}, {MappingKind::MhcFp32, 20}}); }
void BM_HcVsMhcFp32Bf16(benchmark::State& state) {
  run(state, {{MappingKind::HC, 0}, {MappingKind::MhcFp32, 20}, {MappingKind::MhcBf16, 20}});
}

}  // namespace

BENCHMARK(BM_HcVsMhcFp32)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HcVsMhcFp32Bf16)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
