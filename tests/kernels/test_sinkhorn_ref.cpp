// Sinkhorn-Knopp reference (mHC paper Eq. 9, 4.3.1): doubly stochastic to a derived tolerance,
// exact backward, and bounded composite gain (paper Fig. 3/7: "amax gain").
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>

#include "cases.h"
#include "mhcsim/kernels/ref/sinkhorn_ref.h"

using namespace mhcsim::kernels;

namespace {

constexpr double kFloatUnit = 0x1p-24;  // unit roundoff of fp32
constexpr int kIterations = 20;         // paper t_max

// Tolerances for t iterations on logits spanning R = max - min.
// Rows: the last step divides each row by its computed sum s~ = s (1 + e), |e| <= (n-1) u, and
// each quotient adds a relative u, so |row sum - 1| <= n u to first order; 2 n u covers the
// second-order terms.
// Columns (Birkhoff-Hopf; Franklin & Lorenz 1989): positive A contracts Hilbert's projective
// metric d(x, y) = log max(x/y) - log min(x/y) by kappa = tanh(Delta / 4), Delta = max log cross
// ratio <= 2R, so kappa <= tanh(R / 2); the diagonal scalings leave kappa unchanged. The first
// column step leaves row sums with d(r, 1) <= R (column entries differ by <= e^R), and each
// half step contracts by kappa, so after t iterations the column sums c satisfy
// d(c, 1) <= kappa^(2t-1) R. They average 1 (the matrix sums to n), so |c_j - 1| <= e^d - 1.
// Rounding: each step adds ~2n u, and later steps contract it, hence + 2n u / (1 - kappa^2).
double row_tolerance(int64_t n) { return 2.0 * double(n) * kFloatUnit; }
double column_tolerance(double range, int64_t n, int t, bool with_rounding) {
  const double kappa = std::tanh(range / 2.0);
  const double contraction = std::expm1(std::pow(kappa, 2 * t - 1) * range);
  return contraction + (with_rounding ? 2.0 * double(n) * kFloatUnit / (1.0 - kappa * kappa) : 0.0);
}

template <class T>
double max_line_error(const std::vector<T>& h, int64_t n, bool column) {
  double worst = 0;
  for (int64_t line = 0; line < n; ++line) {
    double s = 0;
    for (int64_t k = 0; k < n; ++k) s += double(column ? h[size_t(k * n + line)] : h[size_t(line * n + k)]);
    worst = std::max(worst, std::abs(s - 1.0));
  }
  return worst;
}

Eigen::MatrixXd as_matrix(const std::vector<float>& h, int64_t n) {
  Eigen::MatrixXd m(n, n);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) m(i, j) = h[size_t(i * n + j)];
  }
  return m;
}

// Paper's "amax gain": max absolute row sum (forward) and column sum (backward).
double forward_gain(const Eigen::MatrixXd& m) { return m.cwiseAbs().rowwise().sum().maxCoeff(); }
double backward_gain(const Eigen::MatrixXd& m) { return m.cwiseAbs().colwise().sum().maxCoeff(); }

}  // namespace

TEST_CASE("sinkhorn: rows sum to 1 to rounding, columns within the derived bound", "[kernels][sinkhorn]") {
  const int64_t n = GENERATE(2, 4, 8);
  const float half_range = GENERATE(0.5f, 1.0f, 2.0f);
  for (uint32_t seed = 0; seed < 50; ++seed) {
    const auto logits = testing::uniform(size_t(n * n), -half_range, half_range, seed);
    const double range =
        *std::max_element(logits.begin(), logits.end()) - *std::min_element(logits.begin(), logits.end());
    std::vector<float> h(logits.size());
    ref::sinkhorn_forward(logits.data(), h.data(), n, kIterations);
    CHECK(max_line_error(h, n, false) <= row_tolerance(n));
    CHECK(max_line_error(h, n, true) <= column_tolerance(range, n, kIterations, true));
    // The contraction part alone holds in double, where rounding is negligible.
    std::vector<double> logits_d(logits.begin(), logits.end()), h_d(logits.size());
    ref::sinkhorn_forward(logits_d.data(), h_d.data(), n, kIterations);
    CHECK(max_line_error(h_d, n, true) <= column_tolerance(range, n, kIterations, false) + 1e-14);
  }
  // The bound is not vacuous for the paper's setting: n = 4, logits within +-1, 20 iterations.
  CHECK(column_tolerance(2.0, 4, kIterations, true) < 1e-4);
}

TEST_CASE("sinkhorn: bf16 storage of H_res breaks the row sums (why the paper keeps fp32)", "[kernels][sinkhorn]") {
  const auto logits = testing::uniform(16, -1.0f, 1.0f, 3);
  std::vector<float> h(16);
  ref::sinkhorn_forward(logits.data(), h.data(), 4, kIterations);
  for (float& v : h) v = round_to_bf16(v);
  CHECK(max_line_error(h, 4, false) > 100 * row_tolerance(4));
}

TEST_CASE("sinkhorn: backward matches central finite differences", "[kernels][sinkhorn]") {
  const int64_t n = GENERATE(2, 4);
  const auto logits_f = testing::uniform(size_t(n * n), -1.5f, 1.5f, 21);
  const auto grad_f = testing::uniform(size_t(n * n), -1.0f, 1.0f, 22);
  const std::vector<double> logits(logits_f.begin(), logits_f.end()), grad_h(grad_f.begin(), grad_f.end());
  std::vector<double> analytic(logits.size());
  ref::sinkhorn_backward(logits.data(), grad_h.data(), analytic.data(), n, kIterations);
  const auto loss = [&](const std::vector<double>& l) {  // L = <grad_h, SK(exp(l))>
    std::vector<double> h(l.size());
    ref::sinkhorn_forward(l.data(), h.data(), n, kIterations);
    double s = 0;
    for (size_t i = 0; i < h.size(); ++i) s += grad_h[i] * h[i];
    return s;
  };
  const double step = 1e-5;  // truncation O(step^2) ~ 1e-10, cancellation ~ 1e-16 / step = 1e-11
  for (size_t k = 0; k < logits.size(); ++k) {
    auto up = logits, down = logits;
    up[k] += step;
    down[k] -= step;
    const double numeric = (loss(up) - loss(down)) / (2 * step);
    CHECK_THAT(analytic[k], Catch::Matchers::WithinAbs(numeric, 1e-8));
  }
  // The fp32 backward tracks the double one (fp32 rounding through 40 steps).
  std::vector<float> analytic_f(logits.size());
  ref::sinkhorn_backward(logits_f.data(), grad_f.data(), analytic_f.data(), n, kIterations);
  for (size_t k = 0; k < logits.size(); ++k)
    CHECK_THAT(double(analytic_f[k]), Catch::Matchers::WithinAbs(analytic[k], 1e-5));
}

TEST_CASE("sinkhorn: the composite of many H_res stays bounded, unconstrained mixing explodes", "[kernels][sinkhorn]") {
  const int64_t n = 4;
  const int layers = 64;  // ~2x the paper's 27B model (30 layers)
  Eigen::MatrixXd mhc = Eigen::MatrixXd::Identity(n, n), hc = mhc;
  for (int l = 0; l < layers; ++l) {
    const auto logits = testing::uniform(size_t(n * n), -3.0f, 3.0f, 100 + uint32_t(l));
    std::vector<float> h(logits.size());
    ref::sinkhorn_forward(logits.data(), h.data(), n, kIterations);
    mhc = as_matrix(h, n) * mhc;
    // HC-style unconstrained residual mixing: identity plus a learned perturbation.
    Eigen::MatrixXd free_mix = Eigen::MatrixXd::Identity(n, n);
    for (int64_t i = 0; i < n * n; ++i) free_mix(i / n, i % n) += 0.5 * std::tanh(logits[size_t(i)]);
    hc = free_mix * hc;
  }
  // Paper (27B): mHC peaks at ~1.6, HC at ~3000.
  CHECK(forward_gain(mhc) < 2.0);
  CHECK(backward_gain(mhc) < 2.0);
  CHECK(forward_gain(hc) > 1000.0);
}
