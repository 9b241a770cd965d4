// MoE routing kernels at DeepSeek-V3 shapes (256 experts, 8 groups, top-4 groups, top-8,
// hidden 7168; 4096 tokens as in DeepEP's normal-kernel benchmark).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "bench_util.h"
#include "mhcsim/cost/kernel_bytes.h"
#include "mhcsim/kernels/device_buffer.h"
#include "mhcsim/kernels/kernel_buffers.h"
#include "mhcsim/kernels/moe.h"

namespace mhcsim::kernels::bench {
namespace {

constexpr int64_t kExperts = deepseek_v3_gate(0).experts, kTopK = deepseek_v3_gate(0).top_k;

// Device routing state: gate outputs for `tokens` tokens with N(0, 1) logits and zero bias.
struct Routing : MoeGate<DeviceBuffer> {
  explicit Routing(int64_t tokens) : MoeGate(random_gate(tokens)) { moe_gate(params()); }
  static MoeGate<HostArray> random_gate(int64_t tokens) {
    MoeGate<HostArray> host(deepseek_v3_gate(tokens));
    std::mt19937 rng(7);
    std::normal_distribution<float> dist(0.0f, 1.0f);
    for (float& x : host.logits) x = dist(rng);
    return host;
  }
};

void BM_moe_gate(benchmark::State& state) {
  const int64_t tokens = state.range(0);
  Routing r(tokens);
  const auto p = r.params();
  run_timed(
      state, [&] { moe_gate(p); }, cost::moe_gate_bytes(tokens, kExperts, kTopK).total(), 0);
}

// Device dispatch state: routed tokens permuted once, so combine has its input.
struct Permuted : MoeDispatch<DeviceBuffer> {
  Routing routing;
  explicit Permuted(const benchmark::State& state)
      : MoeDispatch(state.range(0), state.range(1), kExperts, kTopK), routing(state.range(0)) {
    x.fill_bytes(0x3c);
    moe_permute(permute(routing.topk_idx.data()));
  }
};

void BM_moe_permute(benchmark::State& state) {
  Permuted m(state);
  const auto p = m.permute(m.routing.topk_idx.data());
  run_timed(
      state, [&] { moe_permute(p); }, cost::moe_permute_bytes(m.tokens, kTopK, m.hidden, DType::BF16).total(), 0);
}

void BM_moe_combine(benchmark::State& state) {
  Permuted m(state);
  const auto p = m.combine(m.routing.topk_weight.data());
  run_timed(
      state, [&] { moe_combine(p); }, cost::moe_combine_bytes(m.tokens, kTopK, m.hidden, DType::BF16).total(), 0);
}

BENCHMARK(BM_moe_gate)->ArgNames({"tokens"})->Arg(4096)->Arg(32768)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_moe_permute)
    ->ArgNames({"tokens", "hidden"})
    ->Args({4096, 7168})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_moe_combine)
    ->ArgNames({"tokens", "hidden"})
    ->Args({4096, 7168})
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace mhcsim::kernels::bench
