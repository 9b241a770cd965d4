#include "mhcsim/kernels/ref/mhc_ref.h"

#include <cmath>
#include <vector>

namespace mhcsim::kernels::ref {
namespace {

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

// Pass 1 of the unfused path: H_post^T f, an n x C outer product.
void apply_post(const MhcPostResParams& p, int64_t t, bf16_bits* out) {
  const int64_t c_dim = p.channels;
  for (int64_t i = 0; i < p.n; ++i) {
    for (int64_t c = 0; c < c_dim; ++c) {
      const double v = double(p.h_post[t * p.n + i]) * bf16_to_float(p.f[t * c_dim + c]);
      out[(t * p.n + i) * c_dim + c] = float_to_bf16(float(v));
    }
  }
}

// sum_j H_res[i][j] x[j][c] (+ extra[i][c] when given): row i of H_res feeds stream i.
void apply_res(const MhcPostResParams& p, int64_t t, const bf16_bits* x, bf16_bits* out, const float* post_scale) {
  const int64_t c_dim = p.channels;
  const float* h = p.h_res + t * p.n * p.n;
  for (int64_t i = 0; i < p.n; ++i) {
    for (int64_t c = 0; c < c_dim; ++c) {
      double v = 0;
      for (int64_t j = 0; j < p.n; ++j) v += double(h[i * p.n + j]) * bf16_to_float(x[(t * p.n + j) * c_dim + c]);
      if (post_scale) v += double(post_scale[i]) * bf16_to_float(p.f[t * c_dim + c]);
      out[(t * p.n + i) * c_dim + c] = float_to_bf16(float(v));
    }
  }
}

}  // namespace

void mhc_coeff(const MhcCoeffParams& p) {
  validate(p);
  const int64_t width = p.n * p.channels, cols = mhc_coeff_columns(p.n);
  std::vector<double> acc(static_cast<size_t>(cols));
  for (int64_t t = 0; t < p.tokens; ++t) {
    const bf16_bits* x = p.x + t * p.x_token_stride;
    double sum_sq = 0;
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int64_t k = 0; k < width; ++k) {
      const double xk = bf16_to_float(x[k]);
      sum_sq += xk * xk;
      for (int64_t m = 0; m < cols; ++m) acc[static_cast<size_t>(m)] += xk * p.phi[k * cols + m];
    }
    // Eq. 15-16: the RMSNorm is folded after the matmul, r = ||x||_2 / sqrt(nC).
    const double inv_r = 1.0 / std::sqrt(sum_sq / double(width) + p.rms_eps);
    for (int64_t m = 0; m < cols; ++m) {
      const double alpha = m < p.n ? p.alpha_pre : (m < 2 * p.n ? p.alpha_post : p.alpha_res);
      const double h = alpha * acc[static_cast<size_t>(m)] * inv_r + p.bias[m];
      if (m < p.n) {
        p.h_pre[t * p.n + m] = float(sigmoid(h));
      } else if (m < 2 * p.n) {
        p.h_post[t * p.n + m - p.n] = float(2.0 * sigmoid(h));  // Eq. 8: the 2 lets H_post reach 2
      } else {
        p.res_logits[t * p.n * p.n + m - 2 * p.n] = float(h);
      }
    }
  }
}

void mhc_apply_pre(const MhcPreParams& p) {
  validate(p);
  for (int64_t t = 0; t < p.tokens; ++t) {
    for (int64_t c = 0; c < p.channels; ++c) {
      double v = 0;
      for (int64_t j = 0; j < p.n; ++j) {
        v += double(p.h_pre[t * p.n + j]) * bf16_to_float(p.x[t * p.x_token_stride + j * p.channels + c]);
      }
      p.out[t * p.out_token_stride + c] = float_to_bf16(float(v));
    }
  }
}

void mhc_post_res_fused(const MhcPostResParams& p) {
  validate(p, false);
  for (int64_t t = 0; t < p.tokens; ++t) apply_res(p, t, p.x, p.x_next, p.h_post + t * p.n);
}

void mhc_post_res_unfused(const MhcPostResParams& p) {
  validate(p, true);
  const int64_t c_dim = p.channels;
  for (int64_t t = 0; t < p.tokens; ++t) {
    apply_post(p, t, p.scratch_post);
    apply_res(p, t, p.x, p.scratch_res, nullptr);
    for (int64_t e = t * p.n * c_dim; e < (t + 1) * p.n * c_dim; ++e) {  // residual merge
      p.x_next[e] = float_to_bf16(bf16_to_float(p.scratch_post[e]) + bf16_to_float(p.scratch_res[e]));
    }
  }
}

}  // namespace mhcsim::kernels::ref
