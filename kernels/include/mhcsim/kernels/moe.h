#pragma once
// MoE routing kernels (DeepSeek-V3 report 2.1.2, inference model.py Gate): the gate with
// sigmoid affinities, a per-expert bias for auxiliary-loss-free balancing and group-limited
// top-k; the token permute into the expert-major dispatch layout; the weighted un-permute.
// The params are shared with the CPU references in mhcsim/kernels/ref/moe_ref.h.
#include <cstdint>

#include "mhcsim/kernels/bf16.h"
#include "mhcsim/kernels/stream.h"

namespace mhcsim::kernels {

// s = sigmoid(logit); choice = s + bias; group score = sum of the group's top-2 choices; keep
// the topk_group best groups; top_k experts by choice among them; weight = s / sum(s) * scale.
// Ties go to the lower index.
struct MoeGateParams {
  const float* __restrict__ logits = nullptr;  // [tokens][experts]
  const float* __restrict__ bias = nullptr;    // [experts], selection only
  int32_t* __restrict__ topk_idx = nullptr;    // [tokens][top_k], descending choice score
  float* __restrict__ topk_weight = nullptr;   // [tokens][top_k]
  int64_t tokens = 0;
  int64_t experts = 0, groups = 1, topk_group = 1, top_k = 1;
  float route_scale = 1.0f;  // DeepSeek-V3 routed_scaling_factor 2.5
  Stream stream = nullptr;
};
inline constexpr int64_t kMoeMaxExperts = 512;  // GPU gate keeps experts/32 per lane

// Dispatch layout: rows sorted by expert, then by (token, slot); row_of_slot[t*k+s] is the row
// of token t's s-th choice, expert_offsets[e]..[e+1] the rows of expert e.
struct MoePermuteParams {
  const int32_t* __restrict__ topk_idx = nullptr;  // [tokens][top_k]
  const bf16_bits* __restrict__ x = nullptr;       // [tokens][hidden]
  bf16_bits* __restrict__ x_perm = nullptr;        // [tokens*top_k][hidden]
  int32_t* __restrict__ expert_offsets = nullptr;  // [experts+1]
  int32_t* __restrict__ row_of_slot = nullptr;     // [tokens*top_k]
  int32_t* __restrict__ slot_of_row = nullptr;     // [tokens*top_k], inverse of row_of_slot
  int64_t tokens = 0, hidden = 0, experts = 0, top_k = 1;
  Stream stream = nullptr;
};

// out[t] = sum_s weight[t][s] * y_perm[row_of_slot[t*k+s]] (fp32 accumulation, bf16 out).
struct MoeCombineParams {
  const bf16_bits* __restrict__ y_perm = nullptr;  // [tokens*top_k][hidden]
  const int32_t* __restrict__ row_of_slot = nullptr;
  const float* __restrict__ topk_weight = nullptr;  // [tokens][top_k]
  bf16_bits* __restrict__ out = nullptr;            // [tokens][hidden]
  int64_t tokens = 0, hidden = 0, top_k = 1;
  Stream stream = nullptr;
};

void validate(const MoeGateParams& p);
void validate(const MoePermuteParams& p);
void validate(const MoeCombineParams& p);
void moe_gate(const MoeGateParams& p);        // CUDA
void moe_permute(const MoePermuteParams& p);  // CUDA
void moe_combine(const MoeCombineParams& p);  // CUDA

}  // namespace mhcsim::kernels
