#pragma once
// mHC kernels (DeepSeek mHC paper, arXiv 2512.24880, Eq. 3 and 7-9, fused form Eq. 14-16).
// Each params struct is shared by the CUDA kernel (device pointers) and its CPU reference in
// mhcsim/kernels/ref/mhc_ref.h (host pointers). Residual streams are bf16, coefficients fp32.
// Layout: the state x_l of one token is n streams of C channels, stream-major ([n][C]).
#include <cstdint>

#include "mhcsim/kernels/bf16.h"
#include "mhcsim/kernels/stream.h"

namespace mhcsim::kernels {

// Number of coefficient columns: H_pre (n) | H_post (n) | H_res (n*n, row-major).
inline constexpr int64_t mhc_coeff_columns(int64_t n) { return n * n + 2 * n; }

// (a) H~ = x phi, r = ||x||_2 / sqrt(nC), H = alpha H~ / r + b (Eq. 14-16), then
// H_pre = sigmoid, H_post = 2 sigmoid; the H_res part is left as logits for Sinkhorn.
struct MhcCoeffParams {
  const bf16_bits* __restrict__ x = nullptr;                       // [tokens][n*C], row stride x_token_stride
  const float* __restrict__ phi = nullptr;                         // [n*C][n*n+2n] row-major
  const float* __restrict__ bias = nullptr;                        // [n*n+2n], same column order
  float* __restrict__ h_pre = nullptr;                             // [tokens][n]
  float* __restrict__ h_post = nullptr;                            // [tokens][n]
  float* __restrict__ res_logits = nullptr;                        // [tokens][n*n]
  float alpha_pre = 0.01f, alpha_post = 0.01f, alpha_res = 0.01f;  // gates, paper init 0.01
  float rms_eps = 1e-6f;                                           // added to mean(x^2) before the square root
  int64_t tokens = 0;
  int64_t n = 0;
  int64_t channels = 0;        // C
  int64_t x_token_stride = 0;  // elements between tokens (>= n*C)
  Stream stream = nullptr;
};

// (b) Sinkhorn-Knopp on exp(logits): t_max iterations, each a column then a row normalisation.
// Backward is exact through all iterations and recomputes the forward from the logits.
struct SinkhornParams {
  const float* __restrict__ logits = nullptr;      // [tokens][n*n]
  float* __restrict__ h_res = nullptr;             // forward output [tokens][n*n]
  const float* __restrict__ grad_h_res = nullptr;  // backward input [tokens][n*n]
  float* __restrict__ grad_logits = nullptr;       // backward output [tokens][n*n]
  int64_t tokens = 0;
  int64_t n = 0;
  int iterations = 20;  // t_max, paper 4.3.1
  Stream stream = nullptr;
};
inline constexpr int kSinkhornMaxIterations = 64;  // bound of the GPU backward's saved sums

// (c) Apply H_pre: u = sum_j H_pre[j] x_j (the input of the layer function F).
struct MhcPreParams {
  const bf16_bits* __restrict__ x = nullptr;  // [tokens][n][C]
  const float* __restrict__ h_pre = nullptr;  // [tokens][n]
  bf16_bits* __restrict__ out = nullptr;      // [tokens][C]
  int64_t tokens = 0, n = 0, channels = 0;
  int64_t x_token_stride = 0, out_token_stride = 0;
  Stream stream = nullptr;
};

// (d) x_{l+1}[i] = sum_j H_res[i][j] x_l[j] + H_post[i] f. The fused kernel reads x and f once
// ((n+1)C) and writes nC; the unfused path runs apply-H_post, apply-H_res and the residual
// merge as three kernels through two bf16 scratch states ((3n+1)C read, 3nC written; Table 2).
struct MhcPostResParams {
  const bf16_bits* __restrict__ x = nullptr;       // [tokens][n][C]
  const bf16_bits* __restrict__ f = nullptr;       // [tokens][C], output of F
  const float* __restrict__ h_post = nullptr;      // [tokens][n]
  const float* __restrict__ h_res = nullptr;       // [tokens][n*n], row i mixes into stream i
  bf16_bits* __restrict__ x_next = nullptr;        // [tokens][n][C]
  bf16_bits* __restrict__ scratch_post = nullptr;  // unfused only: H_post^T f, [tokens][n][C]
  bf16_bits* __restrict__ scratch_res = nullptr;   // unfused only: H_res x,    [tokens][n][C]
  int64_t tokens = 0, n = 0, channels = 0;         // x, x_next and scratch are contiguous
  Stream stream = nullptr;
};

// Shape checks shared by the CUDA launches and the CPU references: SpecError on bad params.
void validate(const MhcCoeffParams& p);
void validate(const SinkhornParams& p);
void validate(const MhcPreParams& p);
void validate(const MhcPostResParams& p, bool unfused);

// CUDA launches (defined only when MHCSIM_HAVE_CUDA). Each validates its params first and
// throws CudaError on a launch failure.
void mhc_coeff(const MhcCoeffParams& p);
void sinkhorn_forward(const SinkhornParams& p);
void sinkhorn_backward(const SinkhornParams& p);
void mhc_apply_pre(const MhcPreParams& p);
void mhc_post_res_fused(const MhcPostResParams& p);
void mhc_post_res_unfused(const MhcPostResParams& p);

}  // namespace mhcsim::kernels
