// (a) mHC coefficients, fused form (paper Eq. 14-16): one pass over x computes x phi and
// ||x||^2 together; the RMSNorm is applied to the n^2+2n outputs instead of the nC inputs.
// x phi is a [tokens x nC] x [nC x (n^2+2n)] GEMM with a long K and a narrow N, run on tensor
// cores (mma.sync bf16 -> fp32) so that the kernel is bound by reading x, not by FMAs: at
// n = 4 it is 24 FLOP per byte of x, beyond what the CUDA cores sustain at HBM speed. phi is
// fp32; each value is split into bf16 hi + lo (|phi - hi - lo| <= 2^-16 |phi|) and both halves
// are multiplied, so the result keeps fp32-like accuracy.
//
// Block: 64 tokens, 8 warps; warp w owns tokens [32 (w % 2), +32) and the k-step w / 2 of
// every 64-wide k tile, so the 4 warps of a token pair sum partial products in shared memory
// at the end. x and phi tiles stream through a 4-stage cp.async ring.
#include "device_utils.cuh"
#include "mhcsim/kernels/mhc.h"
#include "mma.cuh"

namespace mhcsim::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kTokens = 64;  // per block
constexpr int kK = 64;       // k tile
constexpr int kStages = 4;
constexpr int kXPitch = kK + 8;  // 36 words a row: the A-fragment loads of a warp hit 32 banks

template <int N>
struct Coeff {
  static constexpr int M = N * N + 2 * N;  // output columns
  static constexpr int kNTiles = (M + 7) / 8;
  static constexpr size_t kXBytes = size_t(kTokens) * kXPitch * sizeof(bf16_bits);
  static constexpr size_t kPhiBytes = size_t(kK) * M * sizeof(float);  // rows of phi, as stored
  static constexpr size_t kStageBytes = kXBytes + kPhiBytes;
  static constexpr size_t kTotalsBytes = size_t(kTokens) * (M + 1) * sizeof(float);
  static constexpr size_t kBytes = kStages * kStageBytes > kTotalsBytes ? kStages* kStageBytes : kTotalsBytes;
};

// The B fragment (k rows q, q+1 and q+8, q+9 of column n) of phi's hi or lo bf16 half.
__device__ __forceinline__ void phi_fragment(uint32_t (&hi)[2], uint32_t (&lo)[2], const float* phi_s, int m, int k,
                                             int col, int lane) {
  const int q = 2 * (lane % 4);
#pragma unroll
  for (int r = 0; r < 2; ++r) {
    float f0 = 0, f1 = 0;
    if (col < m) {
      f0 = phi_s[(k + q + 8 * r) * m + col];
      f1 = phi_s[(k + q + 8 * r + 1) * m + col];
    }
    const __nv_bfloat162 h = __floats2bfloat162_rn(f0, f1);
    const float2 hf = __bfloat1622float2(h);
    hi[r] = *reinterpret_cast<const uint32_t*>(&h);
    lo[r] = cuda::pack_bf16(f0 - hf.x, f1 - hf.y);
  }
}

template <int N>
__global__ void __launch_bounds__(kThreads) coeff_kernel(MhcCoeffParams p) {
  using Shape = Coeff<N>;
  constexpr int M = Shape::M, NT = Shape::kNTiles;
  extern __shared__ __align__(16) unsigned char smem[];
  const int64_t t0 = int64_t(blockIdx.x) * kTokens;
  const int64_t width = int64_t(N) * p.channels;
  const int64_t num_tiles = (width + kK - 1) / kK;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int token_half = warp % 2, k_step = warp / 2;

  auto x_stage = [&](int64_t tile) {
    return reinterpret_cast<bf16_bits*>(smem + (tile % kStages) * Shape::kStageBytes);
  };
  auto phi_stage = [&](int64_t tile) {
    return reinterpret_cast<float*>(smem + (tile % kStages) * Shape::kStageBytes + Shape::kXBytes);
  };
  // Zeros past the last token and past nC: 0 x 0 adds nothing, and stale bytes may be NaN.
  auto load_tile = [&](int64_t tile) {
    const int64_t k0 = tile * kK;
    bf16_bits* xs = x_stage(tile);
    for (int v = threadIdx.x; v < kTokens * kK / 8; v += kThreads) {
      const int row = v / (kK / 8), col = (v % (kK / 8)) * 8;
      const bool valid = t0 + row < p.tokens && k0 + col < width;
      const bf16_bits* src = valid ? p.x + (t0 + row) * p.x_token_stride + k0 + col : p.x;
      cuda::cp_async16(xs + row * kXPitch + col, src, valid);
    }
    float* ps = phi_stage(tile);
    const int64_t first = k0 * M, last = width * M;  // phi is row-major: the tile is contiguous
    for (int v = threadIdx.x; v < kK * M / 4; v += kThreads) {
      const bool valid = first + 4 * v < last;  // width * M is a multiple of 4: whole vectors
      cuda::cp_async16(ps + 4 * v, valid ? p.phi + first + 4 * v : p.phi, valid);
    }
  };

  for (int s = 0; s < kStages - 1; ++s) {
    if (s < num_tiles) load_tile(s);
    cuda::cp_async_commit();
  }
  float acc[2][NT][4] = {};
  float sum_sq = 0;  // of token threadIdx / 4, over k segment (threadIdx % 4) * 16 of each tile
  for (int64_t tile = 0; tile < num_tiles; ++tile) {
    cuda::cp_async_wait<kStages - 2>();
    __syncthreads();  // tile is in shared memory, and every warp is done with tile - 1
    if (tile + kStages - 1 < num_tiles) load_tile(tile + kStages - 1);
    cuda::cp_async_commit();
    const bf16_bits* xs = x_stage(tile);
    const float* ps = phi_stage(tile);
    {
      float v[8];
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        cuda::load8(xs + (threadIdx.x / 4) * kXPitch + (threadIdx.x % 4) * 16 + 8 * half, v);
#pragma unroll
        for (int e = 0; e < 8; ++e) sum_sq = fmaf(v[e], v[e], sum_sq);
      }
    }
    uint32_t a[2][4];
#pragma unroll
    for (int mt = 0; mt < 2; ++mt)
      cuda::load_a_fragment(a[mt], xs + (token_half * 32 + mt * 16) * kXPitch, kXPitch, k_step * 16, lane);
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
      uint32_t hi[2], lo[2];
      phi_fragment(hi, lo, ps, M, k_step * 16, nt * 8 + lane / 4, lane);
#pragma unroll
      for (int mt = 0; mt < 2; ++mt) {
        cuda::mma_bf16(acc[mt][nt], a[mt], hi[0], hi[1]);
        cuda::mma_bf16(acc[mt][nt], a[mt], lo[0], lo[1]);
      }
    }
  }
  cuda::cp_async_wait<0>();
  __syncthreads();  // the ring is drained: its memory now holds the per-token totals

  float* total = reinterpret_cast<float*>(smem);  // [64][M + 1]: x phi, then sum(x^2)
  for (int i = threadIdx.x; i < kTokens * (M + 1); i += kThreads) total[i] = 0;
  sum_sq += __shfl_xor_sync(cuda::kFullMask, sum_sq, 1);
  sum_sq += __shfl_xor_sync(cuda::kFullMask, sum_sq, 2);
  __syncthreads();
  if (threadIdx.x % 4 == 0) total[(threadIdx.x / 4) * (M + 1) + M] = sum_sq;
#pragma unroll
  for (int mt = 0; mt < 2; ++mt) {
    const int row = token_half * 32 + mt * 16 + lane / 4;
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int col = nt * 8 + 2 * (lane % 4) + e % 2;
        if (col < M) atomicAdd(&total[(row + 8 * (e / 2)) * (M + 1) + col], acc[mt][nt][e]);
      }
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kTokens * M; i += kThreads) {
    const int tok = i / M, m = i % M;
    const int64_t t = t0 + tok;
    if (t >= p.tokens) continue;
    const float inv_r = rsqrtf(total[tok * (M + 1) + M] / float(width) + p.rms_eps);
    const float alpha = m < N ? p.alpha_pre : (m < 2 * N ? p.alpha_post : p.alpha_res);
    const float h = alpha * total[tok * (M + 1) + m] * inv_r + p.bias[m];
    const float sig = 1.0f / (1.0f + expf(-h));
    if (m < N) {
      p.h_pre[t * N + m] = sig;
    } else if (m < 2 * N) {
      p.h_post[t * N + m - N] = 2.0f * sig;  // Eq. 8
    } else {
      p.res_logits[t * N * N + m - 2 * N] = h;
    }
  }
}

template <int N>
void launch(const MhcCoeffParams& p) {
  constexpr size_t bytes = Coeff<N>::kBytes;
  static cuda::SharedMemoryOptIn opt_in;
  opt_in.ensure(reinterpret_cast<const void*>(coeff_kernel<N>), bytes, "mhc_coeff");
  coeff_kernel<N><<<cuda::grid_1d(p.tokens, kTokens), kThreads, bytes, p.stream>>>(p);
}

}  // namespace

void mhc_coeff(const MhcCoeffParams& p) {
  validate(p);
  // 16-byte cp.async vectors of x rows and of phi.
  require((p.n * p.channels) % 8 == 0 && p.x_token_stride % 8 == 0, "mhc_coeff.channels",
          "the CUDA kernel needs n*C and the token stride to be multiples of 8");
  require(reinterpret_cast<uintptr_t>(p.x) % 16 == 0 && reinterpret_cast<uintptr_t>(p.phi) % 16 == 0, "mhc_coeff.x",
          "the CUDA kernel needs x and phi 16-byte aligned");
  if (p.tokens == 0) return;
  cuda::dispatch_streams(p.n, [&](auto n_const) { launch<decltype(n_const)::value>(p); });
  MHCSIM_CUDA_CHECK_LAUNCH();
}

}  // namespace mhcsim::kernels
