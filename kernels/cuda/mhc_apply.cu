// (c) apply H_pre and (d) F_post,res. One mixing kernel covers the fused pass and the first two
// passes of the unfused path, so the byte saving is the only difference being measured.
#include "device_utils.cuh"
#include "mhcsim/kernels/mhc.h"

namespace mhcsim::kernels {
namespace {

constexpr int kThreads = 128;

// u[c] = sum_j h_pre[j] x[j][c]; one block per token, 8 channels per thread step.
template <int N>
__global__ void __launch_bounds__(kThreads) pre_kernel(MhcPreParams p) {
  const int64_t t = blockIdx.x;
  float h[N];
#pragma unroll
  for (int j = 0; j < N; ++j) h[j] = p.h_pre[t * N + j];
  for (int64_t c = int64_t(threadIdx.x) * 8; c < p.channels; c += kThreads * 8) {
    float out[8] = {};
#pragma unroll
    for (int j = 0; j < N; ++j) {
      float xv[8];
      cuda::load8(p.x + t * p.x_token_stride + j * p.channels + c, xv);
#pragma unroll
      for (int e = 0; e < 8; ++e) out[e] = fmaf(h[j], xv[e], out[e]);
    }
    cuda::store8(p.out + t * p.out_token_stride + c, out);
  }
}

// out[i][c] = (RES ? sum_j h_res[i][j] x[j][c] : 0) + (POST ? h_post[i] f[c] : 0).
template <int N, bool RES, bool POST>
__global__ void __launch_bounds__(kThreads)
    mix_kernel(const bf16_bits* __restrict__ x, const bf16_bits* __restrict__ f, const float* __restrict__ h_res,
               const float* __restrict__ h_post, bf16_bits* __restrict__ out, int64_t channels) {
  const int64_t t = blockIdx.x;
  float hr[RES ? N * N : 1], hp[POST ? N : 1];
  if constexpr (RES) {
#pragma unroll
    for (int i = 0; i < N * N; ++i) hr[i] = h_res[t * N * N + i];
  }
  if constexpr (POST) {
#pragma unroll
    for (int i = 0; i < N; ++i) hp[i] = h_post[t * N + i];
  }
  const int64_t state = t * N * channels;
  for (int64_t c = int64_t(threadIdx.x) * 8; c < channels; c += kThreads * 8) {
    float xv[RES ? N : 1][8], fv[8];
    if constexpr (RES) {
#pragma unroll
      for (int j = 0; j < N; ++j) cuda::load8(x + state + j * channels + c, xv[j]);
    }
    if constexpr (POST) cuda::load8(f + t * channels + c, fv);
#pragma unroll
    for (int i = 0; i < N; ++i) {
      float o[8];
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        float v = 0.0f;
        if constexpr (POST) v = hp[i] * fv[e];
        if constexpr (RES) {
#pragma unroll
          for (int j = 0; j < N; ++j) v = fmaf(hr[i * N + j], xv[j][e], v);
        }
        o[e] = v;
      }
      cuda::store8(out + state + i * channels + c, o);
    }
  }
}

// Pass 3 of the unfused path: x_next = a + b, elementwise over the whole state.
__global__ void __launch_bounds__(256) merge_kernel(const bf16_bits* __restrict__ a, const bf16_bits* __restrict__ b,
                                                    bf16_bits* __restrict__ out, int64_t vectors) {
  for (int64_t v = int64_t(blockIdx.x) * 256 + threadIdx.x; v < vectors; v += int64_t(gridDim.x) * 256) {
    float av[8], bv[8];
    cuda::load8(a + v * 8, av);
    cuda::load8(b + v * 8, bv);
#pragma unroll
    for (int e = 0; e < 8; ++e) av[e] += bv[e];
    cuda::store8(out + v * 8, av);
  }
}

unsigned token_grid(int64_t tokens) { return static_cast<unsigned>(tokens); }

}  // namespace

void mhc_apply_pre(const MhcPreParams& p) {
  validate(p);
  if (p.tokens == 0) return;
  cuda::dispatch_streams(p.n, [&](auto n_const) {
    pre_kernel<decltype(n_const)::value><<<token_grid(p.tokens), kThreads, 0, p.stream>>>(p);
  });
  MHCSIM_CUDA_CHECK_LAUNCH();
}

void mhc_post_res_fused(const MhcPostResParams& p) {
  validate(p, false);
  if (p.tokens == 0) return;
  cuda::dispatch_streams(p.n, [&](auto n_const) {
    mix_kernel<decltype(n_const)::value, true, true>
        <<<token_grid(p.tokens), kThreads, 0, p.stream>>>(p.x, p.f, p.h_res, p.h_post, p.x_next, p.channels);
  });
  MHCSIM_CUDA_CHECK_LAUNCH();
}

void mhc_post_res_unfused(const MhcPostResParams& p) {
  validate(p, true);
  if (p.tokens == 0) return;
  cuda::dispatch_streams(p.n, [&](auto n_const) {
    constexpr int N = decltype(n_const)::value;
    mix_kernel<N, false, true>
        <<<token_grid(p.tokens), kThreads, 0, p.stream>>>(nullptr, p.f, nullptr, p.h_post, p.scratch_post, p.channels);
    mix_kernel<N, true, false>
        <<<token_grid(p.tokens), kThreads, 0, p.stream>>>(p.x, nullptr, p.h_res, nullptr, p.scratch_res, p.channels);
  });
  MHCSIM_CUDA_CHECK_LAUNCH();
  const int64_t vectors = p.tokens * p.n * p.channels / 8;
  const unsigned blocks = static_cast<unsigned>(std::min<int64_t>(cuda::grid_1d(vectors, 256), 65535));
  merge_kernel<<<blocks, 256, 0, p.stream>>>(p.scratch_post, p.scratch_res, p.x_next, vectors);
  MHCSIM_CUDA_CHECK_LAUNCH();
}

}  // namespace mhcsim::kernels
