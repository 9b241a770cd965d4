// MLA decode, weight-absorbed, over a paged bf16 latent cache (FlashMLA layout), split-KV, on
// tensor cores (mma.sync bf16 -> fp32). Block (head block, split, sequence) holds 16 G query
// heads and streams its token range through a 3-stage cp.async ring of 32-token tiles, so each
// cache row is read from HBM once per head block: with h_q <= 32 (TP-split heads), once.
// Per tile, warp (g, w) of head group g (16 heads):
//   S = Q K^T for tokens [8w, 8w + 8) over the 576 dims            (36 mma)
//   online-softmax row statistics over the tile's 32 tokens        (CUDA cores, 8 lanes a row)
//   O[:, 128w, 128w + 128) = O corr + P V, P rounded to bf16        (32 mma)
// A second kernel merges the splits. The token-parallel QK split keeps every tensor-core op
// single-issue across the group; S and P go through shared memory between the two phases.
// With the FP8 cache (656-byte rows) the ring holds the rows as stored and each tile is
// dequantized once into a bf16 tile, bf16(e4m3 x scale) as ref::mla_cache_row defines it.
#include <cuda_fp8.h>

#include <cmath>

#include "device_utils.cuh"
#include "mhcsim/kernels/mla_decode.h"
#include "mma.cuh"

namespace mhcsim::kernels {
namespace {

constexpr int kTile = 32;                                          // tokens per pipeline stage
constexpr int kStages = 3;                                         // 2 tiles in flight while one computes
constexpr int kWarpsPerGroup = 4;                                  // per 16 heads
constexpr int kDimsPerWarp = int(kMlaLatentDim) / kWarpsPerGroup;  // 128 latent dims of O
constexpr int kRowVectors = int(kMlaHeadDim) / 8;                  // 72 x 16 B per cache row
// Pitches (elements) chosen so the fragment loads of a warp hit 32 distinct banks: 584 bf16 =
// 292 words = 4 mod 32 per row; 40 bf16 = 20 words.
constexpr int kRowPitch = int(kMlaHeadDim) + 8;
constexpr int kPPitch = kTile + 8;
constexpr int kSPitch = kTile + 8;  // 40 floats: the float2 stores of a half-warp hit 32 banks
constexpr int kPartialFloats = int(kMlaPartialFloats);

template <int G, bool Fp8>
struct Smem {
  static constexpr int kHeads = 16 * G;
  static constexpr size_t kRowBytes = Fp8 ? size_t(kMlaFp8RowBytes) : kRowPitch * sizeof(bf16_bits);
  static constexpr size_t kRing = size_t(kStages) * kTile * kRowBytes;
  static constexpr size_t kConverted = Fp8 ? size_t(kTile) * kRowPitch * sizeof(bf16_bits) : 0;
  static constexpr size_t kKv = kRing + kConverted;
  static constexpr size_t kQ = size_t(kHeads) * kRowPitch * sizeof(bf16_bits);
  static constexpr size_t kS = size_t(kHeads) * kSPitch * sizeof(float);
  static constexpr size_t kP = size_t(kHeads) * kPPitch * sizeof(bf16_bits);
  static constexpr size_t kStats = size_t(kHeads) * 4 * sizeof(float);  // max, 2 sums, correction
  static constexpr size_t kBytes = kKv + kQ + kS + kP + kStats;
};

// 8 e4m3 values (little-endian in `raw`) to floats; exact (cuda_fp8.h: e4m3 -> half is exact).
__device__ __forceinline__ void fp8x8_to_float(uint2 raw, float (&v)[8]) {
  const uint32_t words[2] = {raw.x, raw.y};
#pragma unroll
  for (int w = 0; w < 2; ++w) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const auto pair = static_cast<__nv_fp8x2_storage_t>(words[w] >> (16 * h));
      const float2 f = __half22float2(__half2(__nv_cvt_fp8x2_to_halfraw2(pair, __NV_E4M3)));
      v[4 * w + 2 * h] = f.x;
      v[4 * w + 2 * h + 1] = f.y;
    }
  }
}

// The staged FP8 rows of one tile -> bf16 rows of kRowPitch (zero rows stay zero).
template <int kThreads>
__device__ __forceinline__ void dequantize_tile(const unsigned char* staged, bf16_bits* out) {
  constexpr int kLatentVectors = int(kMlaLatentDim) / 8;
  for (int v = threadIdx.x; v < kTile * kRowVectors; v += kThreads) {
    const int row = v / kRowVectors, c = v % kRowVectors;
    const unsigned char* src = staged + row * kMlaFp8RowBytes;
    bf16_bits* dst = out + row * kRowPitch + c * 8;
    if (c < kLatentVectors) {
      const float scale = reinterpret_cast<const float*>(src + kMlaLatentDim)[c * 8 / kMlaFp8ScaleTile];
      float f[8];
      fp8x8_to_float(*reinterpret_cast<const uint2*>(src + c * 8), f);
#pragma unroll
      for (int e = 0; e < 8; ++e) f[e] *= scale;
      cuda::store8(dst, f);
    } else {  // RoPE part: bf16 as stored
      *reinterpret_cast<uint4*>(dst) =
          *reinterpret_cast<const uint4*>(src + kMlaLatentDim + 4 * kMlaFp8Scales + (c - kLatentVectors) * 16);
    }
  }
}

template <int G, bool Fp8>
__global__ void __launch_bounds__(G* kWarpsPerGroup * 32) split_kernel(MlaDecodeParams p, int64_t num_splits) {
  using Layout = Smem<G, Fp8>;
  constexpr int kHeads = Layout::kHeads, kThreads = G * kWarpsPerGroup * 32;
  extern __shared__ __align__(16) unsigned char smem[];
  unsigned char* ring = smem;                                             // [stage][tile][row]
  auto* converted = reinterpret_cast<bf16_bits*>(smem + Layout::kRing);   // FP8 only: [tile][pitch]
  auto* q_s = reinterpret_cast<bf16_bits*>(smem + Layout::kKv);           // [heads][pitch]
  auto* s_s = reinterpret_cast<float*>(smem + Layout::kKv + Layout::kQ);  // [heads][kSPitch]
  auto* p_s = reinterpret_cast<bf16_bits*>(smem + Layout::kKv + Layout::kQ + Layout::kS);
  auto* stats = reinterpret_cast<float*>(smem + Layout::kKv + Layout::kQ + Layout::kS + Layout::kP);
  float* row_max = stats;
  float* row_sum = stats + kHeads;
  float* row_corr = stats + 2 * kHeads;
  float* row_sum_exact = stats + 3 * kHeads;  // of the unrounded weights: for lse only

  const int64_t head0 = int64_t(blockIdx.x) * kHeads, split = blockIdx.y, b = blockIdx.z;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int group = warp / kWarpsPerGroup, wig = warp % kWarpsPerGroup;
  const int64_t len = p.seq_lens[b];
  const int64_t begin = split * p.tokens_per_split;
  const int64_t end = len < begin + p.tokens_per_split ? len : begin + p.tokens_per_split;
  const int64_t num_tiles = end > begin ? (end - begin + kTile - 1) / kTile : 0;

  // Stage `tile` of the ring <- tokens [begin + 32 tile, ...); rows past `end` are zeros.
  auto load_tile = [&](int64_t tile) {
    unsigned char* dst = ring + (tile % kStages) * kTile * Layout::kRowBytes;
    const int64_t first = begin + tile * kTile;
    constexpr int kVectors = Fp8 ? int(kMlaFp8RowBytes) / 16 : kRowVectors;  // 16 B per copy
    const auto* cache = Fp8 ? p.kv_cache_fp8 : reinterpret_cast<const unsigned char*>(p.kv_cache);
    constexpr int64_t kStoredRow = Fp8 ? kMlaFp8RowBytes : kMlaHeadDim * int64_t(sizeof(bf16_bits));
    for (int v = threadIdx.x; v < kTile * kVectors; v += kThreads) {
      const int row = v / kVectors, offset = (v % kVectors) * 16;
      const int64_t tok = first + row;
      const bool valid = tok < end;
      const unsigned char* src = cache;
      if (valid) {
        const int64_t block = p.block_table[b * p.max_blocks_per_seq + tok / kMlaBlockTokens];
        src += (block * kMlaBlockTokens + tok % kMlaBlockTokens) * kStoredRow + offset;
      }
      cuda::cp_async16(dst + row * Layout::kRowBytes + offset, src, valid);
    }
  };

  for (int v = threadIdx.x; v < kHeads * kRowVectors; v += kThreads) {
    const int hh = v / kRowVectors, d = (v % kRowVectors) * 8;
    const bool valid = head0 + hh < p.heads;
    const bf16_bits* src = valid ? p.q + (b * p.heads + head0 + hh) * kMlaHeadDim + d : p.q;
    cuda::cp_async16(q_s + hh * kRowPitch + d, src, valid);
  }
  for (int h = threadIdx.x; h < kHeads; h += kThreads) {
    row_max[h] = -INFINITY;
    row_sum[h] = 0;
    row_sum_exact[h] = 0;
  }
  // Group s holds tile s (and q with tile 0); empty groups keep the wait count uniform.
  for (int s = 0; s < kStages - 1; ++s) {
    if (s < num_tiles) load_tile(s);
    cuda::cp_async_commit();
  }

  float acc[kDimsPerWarp / 8][4] = {};
  const bf16_bits* q_group = q_s + group * 16 * kRowPitch;
  for (int64_t tile = 0; tile < num_tiles; ++tile) {
    cuda::cp_async_wait<kStages - 2>();
    __syncthreads();  // tile is in shared memory, and every warp is done with tile - 1
    if (tile + kStages - 1 < num_tiles) load_tile(tile + kStages - 1);
    cuda::cp_async_commit();
    const unsigned char* stage = ring + (tile % kStages) * kTile * Layout::kRowBytes;
    const bf16_bits* kv = reinterpret_cast<const bf16_bits*>(stage);
    if constexpr (Fp8) {
      dequantize_tile<kThreads>(stage, converted);
      __syncthreads();
      kv = converted;
    }
    const int64_t first = begin + tile * kTile;

    {  // S[16 heads][8 tokens] of this warp
      float s[4] = {};
      const bf16_bits* k_row = kv + (wig * 8 + lane / 4) * kRowPitch + 2 * (lane % 4);
#pragma unroll 4
      for (int k = 0; k < int(kMlaHeadDim); k += 16) {
        uint32_t a[4];
        cuda::load_a_fragment(a, q_group, kRowPitch, k, lane);
        cuda::mma_bf16(s, a, cuda::load_u32(k_row + k), cuda::load_u32(k_row + k + 8));
      }
      const int col = wig * 8 + 2 * (lane % 4);
      const int row = group * 16 + lane / 4;
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int c = col + (e % 2);
        s[e] = first + c < end ? s[e] * p.softmax_scale : -INFINITY;
      }
      *reinterpret_cast<float2*>(s_s + row * kSPitch + col) = make_float2(s[0], s[1]);
      *reinterpret_cast<float2*>(s_s + (row + 8) * kSPitch + col) = make_float2(s[2], s[3]);
    }
    __syncthreads();

    {  // online softmax: 8 lanes per head row, 4 tokens each (token `first` is always valid)
      static_assert(kThreads == 8 * kHeads, "8 lanes per head row");
      const int row = threadIdx.x / 8, part = threadIdx.x % 8;
      const float4 v = *reinterpret_cast<const float4*>(s_s + row * kSPitch + part * 4);
      float tile_max = fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w));
#pragma unroll
      for (int offset = 4; offset > 0; offset /= 2)
        tile_max = fmaxf(tile_max, __shfl_xor_sync(cuda::kFullMask, tile_max, offset));
      const float old_max = row_max[row];
      const float new_max = fmaxf(old_max, tile_max);
      // o is normalised by the sum of the bf16-rounded weights that P V uses, so it stays a
      // convex combination; lse = max + log(sum) needs the unrounded sum (rounding each
      // weight by up to 2^-8 would move lse by as much).
      const float w0 = expf(v.x - new_max), w1 = expf(v.y - new_max);
      const float w2 = expf(v.z - new_max), w3 = expf(v.w - new_max);
      const uint32_t lo = cuda::pack_bf16(w0, w1);
      const uint32_t hi = cuda::pack_bf16(w2, w3);
      const float2 flo = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&lo));
      const float2 fhi = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&hi));
      float sum = flo.x + flo.y + fhi.x + fhi.y, sum_exact = w0 + w1 + w2 + w3;
#pragma unroll
      for (int offset = 4; offset > 0; offset /= 2) {
        sum += __shfl_xor_sync(cuda::kFullMask, sum, offset);
        sum_exact += __shfl_xor_sync(cuda::kFullMask, sum_exact, offset);
      }
      *reinterpret_cast<uint2*>(p_s + row * kPPitch + part * 4) = make_uint2(lo, hi);
      __syncwarp();  // every lane of the row has read row_max before lane 0 of it rewrites it
      if (part == 0) {
        const float corr = expf(old_max - new_max);  // 0 on the first tile (old = -inf)
        row_corr[row] = corr;
        row_sum[row] = row_sum[row] * corr + sum;
        row_sum_exact[row] = row_sum_exact[row] * corr + sum_exact;
        row_max[row] = new_max;
      }
    }
    __syncthreads();

    {  // O = O corr + P V over this warp's 128 latent dims
      const int r0 = group * 16 + lane / 4;
      const float c_lo = row_corr[r0], c_hi = row_corr[r0 + 8];
#pragma unroll
      for (int j = 0; j < kDimsPerWarp / 8; ++j) {
        acc[j][0] *= c_lo;
        acc[j][1] *= c_lo;
        acc[j][2] *= c_hi;
        acc[j][3] *= c_hi;
      }
      const bf16_bits* p_group = p_s + group * 16 * kPPitch;
#pragma unroll
      for (int k = 0; k < kTile; k += 16) {
        uint32_t a[4];
        cuda::load_a_fragment(a, p_group, kPPitch, k, lane);
        // ldmatrix rows: tokens k + lane % 8 (+ 8 for matrices 1, 3), dims + 8 for matrices 2, 3.
        const bf16_bits* v_row =
            kv + (k + lane % 8 + ((lane / 8) % 2) * 8) * kRowPitch + wig * kDimsPerWarp + (lane / 16) * 8;
#pragma unroll
        for (int j = 0; j < kDimsPerWarp / 8; j += 2) {
          uint32_t bv[4];
          cuda::ldmatrix_x4_trans(bv, v_row + j * 8);
          cuda::mma_bf16(acc[j], a, bv[0], bv[1]);
          cuda::mma_bf16(acc[j + 1], a, bv[2], bv[3]);
        }
      }
    }
  }
  cuda::cp_async_wait<0>();
  __syncthreads();  // row statistics are final (and written) for every row

  const int r0 = group * 16 + lane / 4;
  float* out = p.workspace + ((b * num_splits + split) * p.heads + head0) * kPartialFloats;
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int row = r0 + 8 * half;
    if (head0 + row >= p.heads) continue;
    float* o = out + row * kPartialFloats;
#pragma unroll
    for (int j = 0; j < kDimsPerWarp / 8; ++j) {
      const int d = wig * kDimsPerWarp + j * 8 + 2 * (lane % 4);
      *reinterpret_cast<float2*>(o + d) = make_float2(acc[j][2 * half], acc[j][2 * half + 1]);
    }
    if (wig == 0 && lane % 4 == 0) {
      o[kMlaLatentDim] = row_max[row];  // -inf and 0 for an empty split
      o[kMlaLatentDim + 1] = row_sum[row];
      o[kMlaLatentDim + 2] = row_sum_exact[row];
    }
  }
}

// o = sum_s o_s exp(m_s - M) / L, L = sum_s l_s exp(m_s - M) over the rounded-weight sums;
// lse = M + log L' with L' the same over the unrounded sums.
__global__ void __launch_bounds__(128) combine_kernel(MlaDecodeParams p, int64_t num_splits) {
  const int64_t b = blockIdx.y, head = blockIdx.x;
  const float* part = p.workspace + (b * num_splits * p.heads + head) * kPartialFloats;
  const int64_t split_stride = p.heads * kPartialFloats;
  float global_max = -INFINITY;
  for (int64_t s = 0; s < num_splits; ++s) global_max = fmaxf(global_max, part[s * split_stride + kMlaLatentDim]);
  float total = 0, total_exact = 0;
  for (int64_t s = 0; s < num_splits; ++s) {
    const float m = part[s * split_stride + kMlaLatentDim];
    if (m > -INFINITY) {
      total += part[s * split_stride + kMlaLatentDim + 1] * expf(m - global_max);
      total_exact += part[s * split_stride + kMlaLatentDim + 2] * expf(m - global_max);
    }
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
  if (threadIdx.x == 0) p.lse[b * p.heads + head] = total > 0 ? global_max + logf(total_exact) : -INFINITY;
}

template <int G, bool Fp8>
void launch_split(const MlaDecodeParams& p, int64_t splits) {
  constexpr size_t bytes = Smem<G, Fp8>::kBytes;
  static cuda::SharedMemoryOptIn opt_in;
  opt_in.ensure(reinterpret_cast<const void*>(split_kernel<G, Fp8>), bytes, "mla");
  const dim3 grid(cuda::grid_1d(p.heads, Smem<G, Fp8>::kHeads), static_cast<unsigned>(splits),
                  static_cast<unsigned>(p.batch));
  split_kernel<G, Fp8><<<grid, G * kWarpsPerGroup * 32, bytes, p.stream>>>(p, splits);
  MHCSIM_CUDA_CHECK_LAUNCH();
}

}  // namespace

void mla_decode(const MlaDecodeParams& p) {
  validate(p);
  require(p.out && p.lse && p.workspace, "mla.out", "null output or workspace (size: mla_workspace_floats)");
  if (p.batch == 0) return;
  const int64_t splits = mla_num_splits(p);
  const bool fp8 = p.kv_cache_fp8 != nullptr, small = p.heads <= 16;
  if (fp8) {
    small ? launch_split<1, true>(p, splits) : launch_split<2, true>(p, splits);
  } else {
    small ? launch_split<1, false>(p, splits) : launch_split<2, false>(p, splits);
  }
  combine_kernel<<<dim3(static_cast<unsigned>(p.heads), static_cast<unsigned>(p.batch)), 128, 0, p.stream>>>(p, splits);
  MHCSIM_CUDA_CHECK_LAUNCH();
}

}  // namespace mhcsim::kernels
