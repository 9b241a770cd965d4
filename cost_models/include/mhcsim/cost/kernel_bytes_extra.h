#pragma once
// Kernel counts that kernel_bytes.h does not have yet, added by the kernels work (issue 5) so
// the benchmarks take every count from cost_models; header-only to leave the cost target's
// sources alone. Same conventions as kernel_bytes.h (minimum traffic, each byte once).
#include <cstdint>

#include "mhcsim/cost/kernel_bytes.h"

namespace mhcsim::cost {

// MoE gate (DeepSeek-V3 report 2.1.2): reads tokens x experts fp32 logits and the expert
// bias; writes top_k int32 indices and fp32 weights per token.
inline KernelBytes moe_gate_bytes(int64_t tokens, int64_t experts, int64_t top_k) {
  return {4.0 * double(tokens * experts + experts), 8.0 * double(tokens * top_k)};
}

// mHC coefficient matmul x phi (paper Eq. 14): 2 nC (n^2+2n) FLOPs per token; the norm and
// the sigmoids are O(nC + n^2) and left out.
inline double mhc_coeff_flops(int64_t n, int64_t channels, int64_t tokens) {
  return 2.0 * double(n * channels) * double(n * n + 2 * n) * double(tokens);
}

}  // namespace mhcsim::cost
