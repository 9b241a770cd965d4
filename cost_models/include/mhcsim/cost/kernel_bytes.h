#pragma once
// Analytical HBM bytes (and FLOPs) of single kernels, for Google Benchmark's bytes_per_second
// and for the roofline. Residual streams are in `act` (bf16 in the paper), mHC coefficients in
// fp32 (paper 4.3.1). Counts are the minimum traffic: each input read once, each output
// written once; weights (phi, bias) are read once per launch.
#include <cstdint>

#include "mhcsim/dtype.h"

namespace mhcsim::cost {

struct KernelBytes {
  double read_bytes = 0;
  double write_bytes = 0;
  double total() const { return read_bytes + write_bytes; }
};

// mHC coefficient kernel (paper Eq. 14-16): reads x (nC per token) and phi (nC x (n^2+2n),
// fp32) + bias once; writes H_pre, H_post and the H_res logits (n^2+2n fp32 per token).
KernelBytes mhc_coeff_bytes(int64_t n, int64_t channels, int64_t tokens, DType act);
// Sinkhorn-Knopp on n x n fp32 logits per token: forward reads logits, writes H_res.
KernelBytes mhc_sinkhorn_forward_bytes(int64_t n, int64_t tokens);
// Backward (paper 4.3.1, recomputes from the logits): reads logits + dH_res, writes dlogits.
KernelBytes mhc_sinkhorn_backward_bytes(int64_t n, int64_t tokens);
// Apply H_pre (Table 2 row "apply H_pre"): reads nC act + n fp32, writes C act.
KernelBytes mhc_pre_bytes(int64_t n, int64_t channels, int64_t tokens, DType act);
// Fused F_post,res (paper 4.3.1): reads x_l (nC) and F's output (C), H_post (n) and H_res
// (n^2) in fp32; writes x_{l+1} (nC).
KernelBytes mhc_post_res_fused_bytes(int64_t n, int64_t channels, int64_t tokens, DType act);
// Unfused apply-H_post, apply-H_res and residual merge (Table 2): reads (3n+1)C + n + n^2,
// writes 3nC.
KernelBytes mhc_post_res_unfused_bytes(int64_t n, int64_t channels, int64_t tokens, DType act);

// MLA decode in FlashMLA's benchmark accounting (DESIGN.md): one KV head of d_c + d_R
// (576) elements per cached token, values are the first d_c (512) of them.
//   FLOPs = 2 s_q sum(s_k) h_q (d_c + d_R + d_c)
//   bytes = sum(s_k) (d_c + d_R) kv + b s_q h_q (d_c + d_R + d_c) q/out
struct MlaDecodeShape {
  int64_t batch = 1;            // b
  int64_t q_tokens = 1;         // s_q per sequence (1 for plain decode, >1 with MTP)
  int64_t total_kv_tokens = 0;  // sum over the batch of s_k
  int64_t q_heads = 128;        // h_q
  int64_t kv_lora_rank = 512;   // d_c
  int64_t rope_dim = 64;        // d_R
};
double mla_decode_flops(const MlaDecodeShape& s);
double mla_decode_bytes(const MlaDecodeShape& s, DType kv, DType q);
// One cached MLA token: d_c + d_R elements of `kv`, or with FP8 FlashMLA's row (DeepSeek-V3.2):
// d_c e4m3 values, one fp32 scale per 128 of them, and the d_R RoPE values kept in bf16.
double mla_cache_row_bytes(int64_t kv_lora_rank, int64_t rope_dim, DType kv);

// mHC coefficient matmul x phi (paper Eq. 14): 2 nC (n^2+2n) FLOPs per token; the norm and
// the sigmoids are O(nC + n^2) and left out.
double mhc_coeff_flops(int64_t n, int64_t channels, int64_t tokens);

// MoE gate (DeepSeek-V3 report 2.1.2): reads tokens x experts fp32 logits and the expert
// bias; writes top_k int32 indices and fp32 weights per token.
KernelBytes moe_gate_bytes(int64_t tokens, int64_t experts, int64_t top_k);

// MoE permute into the expert-major layout: reads each token's hidden once and the top-k
// indices (int32), writes tokens x top_k rows plus two int32 index maps.
KernelBytes moe_permute_bytes(int64_t tokens, int64_t top_k, int64_t hidden, DType act);
// Weighted combine: reads tokens x top_k rows, the weights (fp32) and row map (int32),
// writes one hidden per token.
KernelBytes moe_combine_bytes(int64_t tokens, int64_t top_k, int64_t hidden, DType act);

}  // namespace mhcsim::cost
