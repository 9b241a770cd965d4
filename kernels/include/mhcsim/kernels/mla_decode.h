#pragma once
// MLA decode attention over a paged latent KV cache, weight-absorbed form (DeepSeek-V2 paper,
// section 2.1; FlashMLA). Per head h the query is already absorbed: q = [W_UK_h^T q_nope_h
// (d_c = 512) | q_rope_h (64)], and each cached token is [c_kv (512) | k_rope (64)], so
// score = q . cache_row and the latent output o_lat = softmax . c_kv (the caller applies W_UV).
// s_q = 1 (one new token per sequence). The params are shared with ref::mla_decode.
#include <cstdint>

#include "mhcsim/kernels/bf16.h"
#include "mhcsim/kernels/stream.h"

namespace mhcsim::kernels {

inline constexpr int64_t kMlaLatentDim = 512;                        // d_c, DeepSeek-V3 kv_lora_rank
inline constexpr int64_t kMlaRopeDim = 64;                           // d_h^R, qk_rope_head_dim
inline constexpr int64_t kMlaHeadDim = kMlaLatentDim + kMlaRopeDim;  // 576 per cached token
inline constexpr int64_t kMlaBlockTokens = 64;                       // FlashMLA page size
// FlashMLA's FP8 cache row (DeepSeek-V3.2): the 512 latent values in e4m3 with one fp32 scale
// per 128 of them, then the 64 RoPE values kept in bf16: 512 + 16 + 128 = 656 bytes. The
// kernel computes with bf16(e4m3 x scale), which is exact for power-of-two scales.
// Split-KV workspace record per (sequence, split, head): the unnormalised latent output, the
// running max, the sums of the bf16-rounded and of the exact softmax weights, and one float
// of padding so that records stay 8-byte aligned for the kernel's float2 stores.
inline constexpr int64_t kMlaPartialFloats = kMlaLatentDim + 4;
inline constexpr int64_t kMlaFp8ScaleTile = 128;
inline constexpr int64_t kMlaFp8Scales = kMlaLatentDim / kMlaFp8ScaleTile;
inline constexpr int64_t kMlaFp8RowBytes = kMlaLatentDim + 4 * kMlaFp8Scales + 2 * kMlaRopeDim;

struct MlaDecodeParams {
  const bf16_bits* __restrict__ q = nullptr;           // [batch][heads][576]
  const bf16_bits* __restrict__ kv_cache = nullptr;    // [num_blocks][64][576], or
  const uint8_t* __restrict__ kv_cache_fp8 = nullptr;  // [num_blocks][64][656]: set exactly one
  const int32_t* __restrict__ block_table = nullptr;   // [batch][max_blocks_per_seq]
  const int32_t* __restrict__ seq_lens = nullptr;      // [batch], 0 allowed
  bf16_bits* __restrict__ out = nullptr;               // [batch][heads][512]; 0 for empty seqs
  float* __restrict__ lse = nullptr;                   // [batch][heads], -inf for empty seqs
  float* __restrict__ workspace = nullptr;             // mla_workspace_floats(p) floats (GPU)
  int64_t batch = 0, heads = 0, num_blocks = 0, max_blocks_per_seq = 0;
  int64_t tokens_per_split = 1024;  // split-KV chunk, multiple of 64
  int64_t max_seq_len = 0;          // >= every seq_lens entry (host-known)
  float softmax_scale = 0;          // 1/sqrt(qk_nope + qk_rope) in DeepSeek
  Stream stream = nullptr;
};

int64_t mla_num_splits(const MlaDecodeParams& p);
int64_t mla_workspace_floats(const MlaDecodeParams& p);
void validate(const MlaDecodeParams& p);
void mla_decode(const MlaDecodeParams& p);  // CUDA

}  // namespace mhcsim::kernels
