// (b) Sinkhorn-Knopp in fp32, one thread per token's n x n matrix (paper 4.3.1). The backward
// recomputes the forward from the logits, keeping only each step's n line sums, then walks
// the steps in reverse: y = x / s gives dx = (dy - sum_line(dy * y)) / s and x = y * s.
#include "device_utils.cuh"
#include "mhcsim/kernels/mhc.h"

namespace mhcsim::kernels {
namespace {

constexpr int kThreads = 128;

// Odd steps normalise columns, even steps rows (each iteration: column, then row).
template <int N>
__device__ __forceinline__ void normalise(float (&m)[N * N], float (&sums)[N], bool column) {
#pragma unroll
  for (int line = 0; line < N; ++line) {
    float s = 0;
#pragma unroll
    for (int k = 0; k < N; ++k) s += column ? m[k * N + line] : m[line * N + k];
    sums[line] = s;
#pragma unroll
    for (int k = 0; k < N; ++k) {
      float& v = column ? m[k * N + line] : m[line * N + k];
      v = v / s;
    }
  }
}

template <int N>
__device__ __forceinline__ void load_exp(const float* logits, float (&m)[N * N]) {
  float max_logit = -INFINITY;
#pragma unroll
  for (int i = 0; i < N * N; ++i) {
    m[i] = logits[i];
    max_logit = fmaxf(max_logit, m[i]);
  }
#pragma unroll
  for (int i = 0; i < N * N; ++i) m[i] = expf(m[i] - max_logit);  // SK cancels the factor
}

template <int N>
__global__ void __launch_bounds__(kThreads) forward_kernel(SinkhornParams p) {
  const int64_t t = int64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (t >= p.tokens) return;
  float m[N * N], sums[N];
  load_exp<N>(p.logits + t * N * N, m);
  for (int step = 1; step <= 2 * p.iterations; ++step) normalise<N>(m, sums, step % 2 == 1);
#pragma unroll
  for (int i = 0; i < N * N; ++i) p.h_res[t * N * N + i] = m[i];
}

template <int N>
__global__ void __launch_bounds__(kThreads) backward_kernel(SinkhornParams p) {
  const int64_t t = int64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (t >= p.tokens) return;
  float y[N * N], saved[2 * kSinkhornMaxIterations][N];  // saved sums live in local memory
  load_exp<N>(p.logits + t * N * N, y);
  for (int step = 1; step <= 2 * p.iterations; ++step) normalise<N>(y, saved[step - 1], step % 2 == 1);
  float g[N * N];
#pragma unroll
  for (int i = 0; i < N * N; ++i) g[i] = p.grad_h_res[t * N * N + i];
  for (int step = 2 * p.iterations; step >= 1; --step) {
    const bool column = step % 2 == 1;
#pragma unroll
    for (int line = 0; line < N; ++line) {
      const float s = saved[step - 1][line];
      float dot = 0;
#pragma unroll
      for (int k = 0; k < N; ++k) {
        const int at = column ? k * N + line : line * N + k;
        dot = fmaf(g[at], y[at], dot);
      }
#pragma unroll
      for (int k = 0; k < N; ++k) {
        const int at = column ? k * N + line : line * N + k;
        g[at] = (g[at] - dot) / s;
        y[at] *= s;  // undo this step: y becomes the step's input
      }
    }
  }
  float m0[N * N];
  load_exp<N>(p.logits + t * N * N, m0);  // exact exp(l - max), not the undone product
#pragma unroll
  for (int i = 0; i < N * N; ++i) p.grad_logits[t * N * N + i] = g[i] * m0[i];
}

}  // namespace

void sinkhorn_forward(const SinkhornParams& p) {
  validate(p);
  require(p.h_res != nullptr, "sinkhorn.h_res", "null pointer");
  if (p.tokens == 0) return;
  cuda::dispatch_streams(p.n, [&](auto n_const) {
    forward_kernel<decltype(n_const)::value><<<cuda::grid_1d(p.tokens, kThreads), kThreads, 0, p.stream>>>(p);
  });
  MHCSIM_CUDA_CHECK_LAUNCH();
}

void sinkhorn_backward(const SinkhornParams& p) {
  validate(p);
  require(p.grad_h_res && p.grad_logits, "sinkhorn.grad", "null pointer");
  if (p.tokens == 0) return;
  cuda::dispatch_streams(p.n, [&](auto n_const) {
    backward_kernel<decltype(n_const)::value><<<cuda::grid_1d(p.tokens, kThreads), kThreads, 0, p.stream>>>(p);
  });
  MHCSIM_CUDA_CHECK_LAUNCH();
}

}  // namespace mhcsim::kernels
