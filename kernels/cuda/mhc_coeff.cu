// (a) mHC coefficients, fused form (paper Eq. 14-16): one pass over x computes x phi and
// ||x||^2 together; the RMSNorm is applied to the n^2+2n outputs instead of the nC inputs.
#include "device_utils.cuh"
#include "mhcsim/kernels/mhc.h"

namespace mhcsim::kernels {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

// TOK tokens per block share each phi row read; accumulators: TOK x (M + 1) per thread.
template <int N, int TOK>
__global__ void __launch_bounds__(kThreads) coeff_kernel(MhcCoeffParams p) {
  constexpr int M = N * N + 2 * N;
  constexpr int kAcc = TOK * (M + 1);  // the last of each token's M + 1 is sum(x^2)
  __shared__ float partial[kWarps][kAcc];
  __shared__ float total[kAcc];
  const int64_t t0 = int64_t(blockIdx.x) * TOK;
  const int64_t width = int64_t(N) * p.channels;

  float acc[TOK][M + 1] = {};
  for (int64_t k = threadIdx.x; k < width; k += kThreads) {
    float phi_row[M];
#pragma unroll
    for (int m = 0; m < M; ++m) phi_row[m] = p.phi[k * M + m];
#pragma unroll
    for (int tok = 0; tok < TOK; ++tok) {
      if (t0 + tok >= p.tokens) break;
      const float xk = cuda::bf16_load(p.x + (t0 + tok) * p.x_token_stride + k);
      acc[tok][M] = fmaf(xk, xk, acc[tok][M]);
#pragma unroll
      for (int m = 0; m < M; ++m) acc[tok][m] = fmaf(xk, phi_row[m], acc[tok][m]);
    }
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
#pragma unroll
  for (int tok = 0; tok < TOK; ++tok) {
#pragma unroll
    for (int m = 0; m <= M; ++m) {
      const float v = cuda::warp_sum(acc[tok][m]);
      if (lane == 0) partial[warp][tok * (M + 1) + m] = v;
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kAcc; i += kThreads) {
    float s = 0;
    for (int w = 0; w < kWarps; ++w) s += partial[w][i];
    total[i] = s;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < TOK * M; i += kThreads) {
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

}  // namespace

void mhc_coeff(const MhcCoeffParams& p) {
  validate(p);
  if (p.tokens == 0) return;
  cuda::dispatch_streams(p.n, [&](auto n_const) {
    constexpr int N = decltype(n_const)::value;
    constexpr int TOK = N <= 4 ? 4 : 1;  // keeps TOK x (n^2+2n+1) accumulators in registers
    coeff_kernel<N, TOK><<<cuda::grid_1d(p.tokens, TOK), kThreads, 0, p.stream>>>(p);
  });
  MHCSIM_CUDA_CHECK_LAUNCH();
}

}  // namespace mhcsim::kernels
