// MoE routing kernels at DeepSeek-V3 shapes (256 experts, 8 groups, top-4 groups, top-8,
// hidden 7168; 4096 tokens as in DeepEP's normal-kernel benchmark).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "bench_util.h"
#include "mhcsim/cost/kernel_bytes.h"
#include "mhcsim/cost/kernel_bytes_extra.h"
#include "mhcsim/kernels/device_buffer.h"
#include "mhcsim/kernels/moe.h"

namespace mhcsim::kernels::bench {
namespace {

constexpr int64_t kExperts = 256, kTopK = 8;

std::vector<float> random_logits(int64_t tokens) {
  std::mt19937 rng(7);
  std::normal_distribution<float> dist(0.0f, 1.0f);
  std::vector<float> v(size_t(tokens * kExperts));
  for (float& x : v) x = dist(rng);
  return v;
}

// Device routing state: gate outputs for `tokens` random tokens.
struct Routing {
  DeviceBuffer<float> logits, bias, weight;
  DeviceBuffer<int32_t> idx;
  MoeGateParams gate;
  explicit Routing(int64_t tokens)
      : logits(random_logits(tokens)), bias(std::vector<float>(size_t(kExperts), 0.0f)),
        weight(size_t(tokens * kTopK)), idx(size_t(tokens * kTopK)) {
    gate.logits = logits.get();
    gate.bias = bias.get();
    gate.topk_idx = idx.get();
    gate.topk_weight = weight.get();
    gate.tokens = tokens;
    gate.experts = kExperts;
    gate.groups = 8;
    gate.topk_group = 4;
    gate.top_k = kTopK;
    gate.route_scale = 2.5f;
    moe_gate(gate);
  }
};

void BM_moe_gate(benchmark::State& state) {
  const int64_t tokens = state.range(0);
  Routing r(tokens);
  run_timed(state, [&] { moe_gate(r.gate); }, cost::moe_gate_bytes(tokens, kExperts, kTopK).total(), 0);
}

struct Permuted {
  DeviceBuffer<bf16_bits> x, x_perm, out;
  DeviceBuffer<int32_t> offsets, row_of, slot_of;
  MoePermuteParams permute;
  MoeCombineParams combine;
  Permuted(const Routing& r, int64_t tokens, int64_t hidden)
      : x(size_t(tokens * hidden)), x_perm(size_t(tokens * kTopK * hidden)), out(x.size()), offsets(size_t(kExperts + 1)),
        row_of(size_t(tokens * kTopK)), slot_of(row_of.size()) {
    x.fill_bytes(0x3c);
    permute.topk_idx = r.idx.get();
    permute.x = x.get();
    permute.x_perm = x_perm.get();
    permute.expert_offsets = offsets.get();
    permute.row_of_slot = row_of.get();
    permute.slot_of_row = slot_of.get();
    permute.tokens = tokens;
    permute.hidden = hidden;
    permute.experts = kExperts;
    permute.top_k = kTopK;
    moe_permute(permute);
    combine.y_perm = x_perm.get();
    combine.row_of_slot = row_of.get();
    combine.topk_weight = r.weight.get();
    combine.out = out.get();
    combine.tokens = tokens;
    combine.hidden = hidden;
    combine.top_k = kTopK;
  }
};

void BM_moe_permute(benchmark::State& state) {
  const int64_t tokens = state.range(0), hidden = state.range(1);
  Routing r(tokens);
  Permuted m(r, tokens, hidden);
  run_timed(state, [&] { moe_permute(m.permute); }, cost::moe_permute_bytes(tokens, kTopK, hidden, DType::BF16).total(), 0);
}

void BM_moe_combine(benchmark::State& state) {
  const int64_t tokens = state.range(0), hidden = state.range(1);
  Routing r(tokens);
  Permuted m(r, tokens, hidden);
  run_timed(state, [&] { moe_combine(m.combine); }, cost::moe_combine_bytes(tokens, kTopK, hidden, DType::BF16).total(), 0);
}

BENCHMARK(BM_moe_gate)->ArgNames({"tokens"})->Arg(4096)->Arg(32768)->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_moe_permute)->ArgNames({"tokens", "hidden"})->Args({4096, 7168})->UseManualTime()->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_moe_combine)->ArgNames({"tokens", "hidden"})->Args({4096, 7168})->UseManualTime()->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace mhcsim::kernels::bench
