// CPU reference of the mHC coefficient and apply kernels (mHC paper Eq. 3, 7-9, 14-16) and the
// known implementation bugs listed in DESIGN.md (H_post's 2x, H_res transposed or unapplied).
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <cmath>

#include "cases.h"
#include "mhcsim/kernels/ref/mhc_ref.h"
#include "mhcsim/kernels/ref/sinkhorn_ref.h"

using namespace mhcsim::kernels;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

// The case with H_pre, H_post and the H_res logits computed from its x, phi and bias.
testing::MhcCase run_coeff(testing::MhcCase c, float alpha) {
  auto p = c.coeff();
  p.alpha_pre = p.alpha_post = p.alpha_res = alpha;
  ref::mhc_coeff(p);
  return c;
}

double sigmoid(double v) { return 1.0 / (1.0 + std::exp(-v)); }

}  // namespace

TEST_CASE("mhc_coeff: folded RMSNorm equals normalise-then-project (Eq. 14-16)", "[kernels][mhc]") {
  const int64_t n = GENERATE(1, 4);
  const auto c = testing::make_mhc_case(3, n, 64, 11);
  const float alpha = 0.7f;  // large enough that the sigmoids leave their linear range
  const auto got = run_coeff(c, alpha);
  const int64_t width = n * c.channels, cols = n * n + 2 * n;
  const Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> phi(c.phi.data(), width,
                                                                                                    cols);
  for (int64_t t = 0; t < c.tokens; ++t) {
    Eigen::RowVectorXd x(width);
    for (int64_t k = 0; k < width; ++k) x(k) = bf16_to_float(c.x[size_t(t * width + k)]);
    const Eigen::RowVectorXd normed = x / std::sqrt(x.squaredNorm() / double(width) + 1e-6);  // Eq. 7
    const Eigen::RowVectorXd h = alpha * (normed * phi.cast<double>());
    for (int64_t m = 0; m < cols; ++m) {
      const double logit = h(m) + c.bias[size_t(m)];
      // fp32 outputs of a double computation: a few float ulps.
      if (m < n) {
        CHECK_THAT(got.h_pre[size_t(t * n + m)], WithinRel(float(sigmoid(logit)), 1e-5f));
      } else if (m < 2 * n) {
        CHECK_THAT(got.h_post[size_t(t * n + m - n)], WithinRel(float(2 * sigmoid(logit)), 1e-5f));
      } else {
        CHECK_THAT(got.res_logits[size_t(t * n * n + m - 2 * n)], WithinAbs(logit, 1e-5));
      }
    }
  }
}

TEST_CASE("mhc_coeff: H_post = 2 sigmoid, so zero logits give H_post = 1 (not 0.5)", "[kernels][mhc]") {
  auto c = testing::make_mhc_case(2, 4, 32, 12);
  std::fill(c.bias.begin(), c.bias.end(), 0.0f);
  const auto got = run_coeff(c, 0.0f);          // alpha = 0: every logit is its bias, 0
  for (float v : got.h_post) CHECK(v == 1.0f);  // the forgotten-2x bug would give 0.5
  for (float v : got.h_pre) CHECK(v == 0.5f);
}

TEST_CASE("mhc: n = 1 reduces to the plain residual x + f", "[kernels][mhc]") {
  auto c = testing::make_mhc_case(4, 1, 64, 13);
  std::fill(c.bias.begin(), c.bias.end(), 0.0f);
  const auto coeff = run_coeff(c, 0.0f);
  float h_res = 0;
  ref::sinkhorn_forward(&coeff.res_logits[0], &h_res, 1, 20);
  REQUIRE(h_res == 1.0f);  // a 1 x 1 doubly stochastic matrix
  c.h_post = coeff.h_post;
  std::fill(c.h_res.begin(), c.h_res.end(), h_res);
  ref::mhc_post_res_fused(c.post_res());
  for (size_t i = 0; i < c.x_next.size(); ++i) {
    CHECK(c.x_next[i] == float_to_bf16(bf16_to_float(c.x[i]) + bf16_to_float(c.f[i])));
  }
}

TEST_CASE("mhc_post_res: row i of H_res mixes into stream i (not the transpose), and is applied", "[kernels][mhc]") {
  auto c = testing::make_mhc_case(1, 4, 8, 14);
  // Stream j holds the constant j + 1 (exact in bf16); f = 0, so x_next = H_res x.
  for (int64_t j = 0; j < 4; ++j) {
    for (int64_t ch = 0; ch < 8; ++ch) c.x[size_t(j * 8 + ch)] = float_to_bf16(float(j + 1));
  }
  std::fill(c.f.begin(), c.f.end(), float_to_bf16(0.0f));
  // A doubly stochastic, non-symmetric matrix: stream i takes 3/4 of itself, 1/4 of stream i+1.
  std::fill(c.h_res.begin(), c.h_res.end(), 0.0f);
  for (int64_t i = 0; i < 4; ++i) {
    c.h_res[size_t(i * 4 + i)] = 0.75f;
    c.h_res[size_t(i * 4 + (i + 1) % 4)] = 0.25f;
  }
  ref::mhc_post_res_fused(c.post_res());
  const auto& out = c.x_next;
  const float expected[4] = {0.75f * 1 + 0.25f * 2, 0.75f * 2 + 0.25f * 3, 0.75f * 3 + 0.25f * 4,
                             0.75f * 4 + 0.25f * 1};
  const float transposed0 = 0.75f * 1 + 0.25f * 4;  // what an untransposed-bug kernel yields
  for (int64_t i = 0; i < 4; ++i) {
    CHECK(bf16_to_float(out[size_t(i * 8)]) == expected[i]);
    CHECK(bf16_to_float(out[size_t(i * 8)]) != float(i + 1));  // H_res was applied
  }
  CHECK(bf16_to_float(out[0]) != transposed0);
}

TEST_CASE("mhc_post_res: fused and unfused agree within their extra bf16 roundings", "[kernels][mhc]") {
  auto c = testing::make_mhc_case(5, 4, 128, 15);
  ref::mhc_post_res_fused(c.post_res());
  const auto fused = c.x_next;
  ref::mhc_post_res_unfused(c.post_res());
  const auto& unfused = c.x_next;
  for (size_t e = 0; e < fused.size(); ++e) {
    const int64_t t = int64_t(e) / (4 * 128), i = (int64_t(e) / 128) % 4, ch = int64_t(e) % 128;
    double exact = double(c.h_post[size_t(t * 4 + i)]) * bf16_to_float(c.f[size_t(t * 128 + ch)]);
    for (int64_t j = 0; j < 4; ++j) {
      exact += double(c.h_res[size_t((t * 4 + i) * 4 + j)]) * bf16_to_float(c.x[size_t((t * 4 + j) * 128 + ch)]);
    }
    const double magnitude = testing::post_res_magnitude(c, t, i, ch);
    // Fused: one bf16 rounding of the result (eps/2 relative). Unfused: also the two
    // intermediates are rounded (eps/2 of |res| and of |post|) before the final rounding.
    CHECK(std::abs(bf16_to_float(fused[e]) - exact) <= kBf16Epsilon / 2 * std::abs(exact) + 1e-6);
    CHECK(std::abs(bf16_to_float(unfused[e]) - exact) <= kBf16Epsilon * magnitude + 1e-6);
  }
}

TEST_CASE("mhc_apply_pre: u = sum_j H_pre[j] x_j", "[kernels][mhc]") {
  auto c = testing::make_mhc_case(3, 4, 64, 16);
  ref::mhc_apply_pre(c.pre());
  const auto& out = c.u;
  for (int64_t t = 0; t < c.tokens; ++t) {
    for (int64_t ch = 0; ch < c.channels; ++ch) {
      double u = 0;
      for (int64_t j = 0; j < 4; ++j)
        u += double(c.h_pre[size_t(t * 4 + j)]) * bf16_to_float(c.x[size_t((t * 4 + j) * 64 + ch)]);
      CHECK(std::abs(bf16_to_float(out[size_t(t * 64 + ch)]) - u) <= kBf16Epsilon / 2 * std::abs(u) + 1e-6);
    }
  }
}
