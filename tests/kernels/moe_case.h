#pragma once
// Seeded MoE gate inputs shared by the CPU and GPU tests: DeepSeek-V3-shaped routing
// (256 experts, 8 groups, keep 4 groups, top-8, scale 2.5) on random logits and biases.
#include <vector>

#include "cases.h"
#include "mhcsim/kernels/moe.h"

namespace mhcsim::kernels::testing {

struct MoeCase {
  MoeGateParams gate;  // host pointers into the vectors below
  std::vector<float> logits, bias, weight;
  std::vector<int32_t> idx;
};

inline void make_moe_case(MoeCase& c, int64_t tokens, uint32_t seed) {
  c.gate.tokens = tokens;
  c.gate.experts = 256;
  c.gate.groups = 8;
  c.gate.topk_group = 4;
  c.gate.top_k = 8;
  c.gate.route_scale = 2.5f;
  c.logits = uniform(size_t(tokens * 256), -4.0f, 4.0f, seed);
  c.bias = uniform(256, -0.1f, 0.1f, seed + 1);
  c.idx.assign(size_t(tokens * 8), -1);
  c.weight.assign(size_t(tokens * 8), 0.0f);
  c.gate.logits = c.logits.data();
  c.gate.bias = c.bias.data();
  c.gate.topk_idx = c.idx.data();
  c.gate.topk_weight = c.weight.data();
}

}  // namespace mhcsim::kernels::testing
