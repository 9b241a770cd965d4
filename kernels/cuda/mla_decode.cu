// MLA decode, weight-absorbed, over a paged bf16 latent cache (FlashMLA layout), split-KV:
// block (split, head group, sequence) streams its token range in tiles of 32 through shared
// memory; warp w owns head w of the group (online softmax), lane l scores token l of the tile
// and then accumulates latent dims 2l, 2l+1 (+64 k). A second kernel merges the splits.
#include <cmath>

#include "device_utils.cuh"
#include "mhcsim/kernels/mla_decode.h"

namespace mhcsim::kernels {
namespace {

constexpr int kHeadsPerBlock = 8;
constexpr int kThreads = kHeadsPerBlock * 32;
constexpr int kTileTokens = 32;
// Row pitch 584 bf16 = 73 x 16 B: odd, so the 16-byte row reads of a quarter-warp hit
// distinct banks.
constexpr int kRowPitch = int(kMlaHeadDim) + 8;
constexpr int kDimsPerLane = int(kMlaLatentDim) / 32;  // 16, as 8 bf16 pairs
constexpr int kPartialFloats = int(kMlaLatentDim) + 2;  // o (unnormalised), max, sum

__global__ void __launch_bounds__(kThreads) split_kernel(MlaDecodeParams p, int64_t num_splits) {
  __shared__ __align__(16) bf16_bits q_s[kHeadsPerBlock][kMlaHeadDim];
  __shared__ __align__(16) bf16_bits kv_s[kTileTokens][kRowPitch];
  const int64_t split = blockIdx.x, b = blockIdx.z;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t head = int64_t(blockIdx.y) * kHeadsPerBlock + warp;
  const bool head_ok = head < p.heads;
  const int64_t len = p.seq_lens[b];
  const int64_t begin = split * p.tokens_per_split;
  const int64_t end = len < begin + p.tokens_per_split ? len : begin + p.tokens_per_split;

  constexpr int kQVectors = kHeadsPerBlock * int(kMlaHeadDim) / 8;
  for (int v = threadIdx.x; v < kQVectors; v += kThreads) {
    const int hh = v / (int(kMlaHeadDim) / 8), d = (v % (int(kMlaHeadDim) / 8)) * 8;
    const int64_t qh = int64_t(blockIdx.y) * kHeadsPerBlock + hh;
    uint4 raw = make_uint4(0, 0, 0, 0);
    if (qh < p.heads) raw = *reinterpret_cast<const uint4*>(p.q + (b * p.heads + qh) * kMlaHeadDim + d);
    *reinterpret_cast<uint4*>(&q_s[hh][d]) = raw;
  }

  float run_max = -INFINITY, run_sum = 0, acc[kDimsPerLane] = {};
  for (int64_t tile = begin; tile < end; tile += kTileTokens) {
    __syncthreads();  // the previous tile (and q on the first pass) is consumed
    constexpr int kRowVectors = int(kMlaHeadDim) / 8;
    for (int v = threadIdx.x; v < kTileTokens * kRowVectors; v += kThreads) {
      const int row = v / kRowVectors, d = (v % kRowVectors) * 8;
      const int64_t tok = tile + row;
      if (tok >= end) continue;  // never read past the sequence: padding may be NaN
      const int64_t block = p.block_table[b * p.max_blocks_per_seq + tok / kMlaBlockTokens];
      const bf16_bits* src = p.kv_cache + (block * kMlaBlockTokens + tok % kMlaBlockTokens) * kMlaHeadDim + d;
      *reinterpret_cast<uint4*>(&kv_s[row][d]) = *reinterpret_cast<const uint4*>(src);
    }
    __syncthreads();
    const bool tok_ok = tile + lane < end;
    float score = -INFINITY;
    if (tok_ok) {
      float dot = 0;
      for (int d = 0; d < int(kMlaHeadDim); d += 8) {
        float qv[8], kv[8];
        cuda::load8(&q_s[warp][d], qv);
        cuda::load8(&kv_s[lane][d], kv);
#pragma unroll
        for (int e = 0; e < 8; ++e) dot = fmaf(qv[e], kv[e], dot);
      }
      score = dot * p.softmax_scale;
    }
    const float new_max = fmaxf(run_max, cuda::warp_max(score));  // finite: lane 0 is valid
    const float correction = expf(run_max - new_max);
    const float weight = tok_ok ? expf(score - new_max) : 0.0f;
    run_sum = run_sum * correction + cuda::warp_sum(weight);
    run_max = new_max;
#pragma unroll
    for (int k = 0; k < kDimsPerLane; ++k) acc[k] *= correction;
    const int tile_tokens = end - tile < kTileTokens ? int(end - tile) : kTileTokens;
    for (int tt = 0; tt < tile_tokens; ++tt) {
      const float w = __shfl_sync(cuda::kFullMask, weight, tt);
#pragma unroll
      for (int k = 0; k < kDimsPerLane / 2; ++k) {
        const float2 c = __bfloat1622float2(
            *reinterpret_cast<const __nv_bfloat162*>(&kv_s[tt][2 * (lane + 32 * k)]));
        acc[2 * k] = fmaf(w, c.x, acc[2 * k]);
        acc[2 * k + 1] = fmaf(w, c.y, acc[2 * k + 1]);
      }
    }
  }
  if (!head_ok) return;
  float* out = p.workspace + ((b * num_splits + split) * p.heads + head) * kPartialFloats;
#pragma unroll
  for (int k = 0; k < kDimsPerLane / 2; ++k) {
    out[2 * (lane + 32 * k)] = acc[2 * k];
    out[2 * (lane + 32 * k) + 1] = acc[2 * k + 1];
  }
  if (lane == 0) {
    out[kMlaLatentDim] = run_max;  // -inf and 0 for an empty split
    out[kMlaLatentDim + 1] = run_sum;
  }
}

// o = sum_s o_s exp(m_s - M) / L, L = sum_s l_s exp(m_s - M), lse = M + log L.
__global__ void __launch_bounds__(128) combine_kernel(MlaDecodeParams p, int64_t num_splits) {
  const int64_t b = blockIdx.y, head = blockIdx.x;
  const float* part = p.workspace + (b * num_splits * p.heads + head) * kPartialFloats;
  const int64_t split_stride = p.heads * kPartialFloats;
  float global_max = -INFINITY;
  for (int64_t s = 0; s < num_splits; ++s) global_max = fmaxf(global_max, part[s * split_stride + kMlaLatentDim]);
  float total = 0;
  for (int64_t s = 0; s < num_splits; ++s) {
    const float m = part[s * split_stride + kMlaLatentDim];
    if (m > -INFINITY) total += part[s * split_stride + kMlaLatentDim + 1] * expf(m - global_max);
  }
  bf16_bits* out = p.out + (b * p.heads + head) * kMlaLatentDim;
  for (int d = threadIdx.x; d < int(kMlaLatentDim); d += 128) {
    float o = 0;
    for (int64_t s = 0; s < num_splits; ++s) {
      const float m = part[s * split_stride + kMlaLatentDim];
      if (m > -INFINITY) o += part[s * split_stride + d] * expf(m - global_max);
    }
    const float value = total > 0 ? o / total : 0.0f;  // empty sequence: o = 0
    *reinterpret_cast<__nv_bfloat16*>(out + d) = __float2bfloat16_rn(value);
  }
  if (threadIdx.x == 0) p.lse[b * p.heads + head] = total > 0 ? global_max + logf(total) : -INFINITY;
}

}  // namespace

void mla_decode(const MlaDecodeParams& p) {
  validate(p);
  require(p.out && p.lse && p.workspace, "mla.out", "null output or workspace (size: mla_workspace_floats)");
  if (p.batch == 0) return;
  const int64_t splits = mla_num_splits(p);
  const dim3 grid(static_cast<unsigned>(splits), cuda::grid_1d(p.heads, kHeadsPerBlock),
                  static_cast<unsigned>(p.batch));
  split_kernel<<<grid, kThreads, 0, p.stream>>>(p, splits);
  MHCSIM_CUDA_CHECK_LAUNCH();
  combine_kernel<<<dim3(static_cast<unsigned>(p.heads), static_cast<unsigned>(p.batch)), 128, 0, p.stream>>>(p, splits);
  MHCSIM_CUDA_CHECK_LAUNCH();
}

}  // namespace mhcsim::kernels
