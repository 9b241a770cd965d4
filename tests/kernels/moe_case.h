#pragma once
// Seeded MoE gate inputs shared by the CPU and GPU tests: DeepSeek-V3-shaped routing
// (256 experts, 8 groups, keep 4 groups, top-8, scale 2.5) on random logits and biases.
#include "cases.h"
#include "mhcsim/kernels/kernel_buffers.h"
#include "mhcsim/kernels/moe.h"
#include "mhcsim/kernels/ref/moe_ref.h"

namespace mhcsim::kernels::testing {

using MoeCase = MoeGate<HostArray>;

inline MoeCase make_moe_case(int64_t tokens, uint32_t seed) {
  MoeCase c(deepseek_v3_gate(tokens));
  c.logits = uniform(c.logits.size(), -4.0f, 4.0f, seed);
  c.bias = uniform(c.bias.size(), -0.1f, 0.1f, seed + 1);
  c.topk_idx.assign(c.topk_idx.size(), -1);
  return c;
}

// Tokens routed by the reference gate, and their hidden states (in [-3, 3]) to dispatch.
struct RoutedCase {
  MoeCase gate;
  MoeDispatch<HostArray> dispatch;
};

inline RoutedCase make_routed_case(int64_t tokens, int64_t hidden, uint32_t seed) {
  RoutedCase r{make_moe_case(tokens, seed), MoeDispatch<HostArray>(tokens, hidden, 256, 8)};
  ref::moe_gate(r.gate.params());
  r.dispatch.x = uniform_bf16(r.dispatch.x.size(), -3.0f, 3.0f, seed + 2);
  return r;
}

}  // namespace mhcsim::kernels::testing
