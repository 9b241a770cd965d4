#include "mhcsim/calib/robust_fit.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mhcsim::calib {
namespace {

constexpr double kMadToSigma = 1.4826;  // MAD of a normal distribution = 0.6745 sigma
constexpr double kHuberK = 1.345;       // 95% efficiency at the normal (Huber 1981)
constexpr double kRejectSigmas = 3.0;
constexpr int kHuberIterations = 30;

struct Problem {
  Eigen::MatrixXd a;  // rows scaled by 1 / y
  Eigen::VectorXd b;  // = 1
};

Problem relative_problem(const std::vector<std::vector<double>>& rows, const std::vector<double>& y) {
  const auto n = static_cast<Eigen::Index>(rows.size());
  const auto k = static_cast<Eigen::Index>(rows.front().size());
  Problem p{Eigen::MatrixXd(n, k), Eigen::VectorXd::Ones(n)};
  for (Eigen::Index i = 0; i < n; ++i)
    for (Eigen::Index j = 0; j < k; ++j) p.a(i, j) = rows[size_t(i)][size_t(j)] / y[size_t(i)];
  return p;
}

// Weighted least squares on the rows with weight > 0.
Eigen::VectorXd solve(const Problem& p, const Eigen::VectorXd& w) {
  const Eigen::VectorXd sw = w.cwiseSqrt();
  const Eigen::MatrixXd a = sw.asDiagonal() * p.a;
  const Eigen::VectorXd b = sw.cwiseProduct(p.b);
  const auto qr = a.colPivHouseholderQr();
  if (qr.rank() < a.cols())
    throw std::invalid_argument("the measurements do not determine every parameter (collinear)");
  return qr.solve(b);
}

double robust_scale(const Eigen::VectorXd& r, const Eigen::VectorXd& w) {
  std::vector<double> dev;
  std::vector<double> kept;
  for (Eigen::Index i = 0; i < r.size(); ++i)
    if (w(i) > 0) kept.push_back(r(i));
  const double mid = median(kept);
  for (double v : kept) dev.push_back(std::abs(v - mid));
  return kMadToSigma * median(dev);
}

}  // namespace

int LinearFit::inliers() const { return int(std::count(inlier.begin(), inlier.end(), true)); }

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const auto mid = v.begin() + std::ptrdiff_t(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  if (v.size() % 2) return *mid;
  return 0.5 * (*mid + *std::max_element(v.begin(), mid));
}

LinearFit robust_linear_fit(const std::vector<std::vector<double>>& rows, const std::vector<double>& y,
                            double min_rel_threshold) {
  if (rows.empty() || rows.size() != y.size() || rows.size() < rows.front().size())
    throw std::invalid_argument("too few measurements for the fit (need one per parameter)");
  const Problem p = relative_problem(rows, y);
  const Eigen::Index n = p.a.rows();
  const auto residual = [&](const Eigen::VectorXd& c) -> Eigen::VectorXd { return p.b - p.a * c; };

  // Huber IRLS: full weight inside k sigma, k sigma / |r| outside.
  Eigen::VectorXd w = Eigen::VectorXd::Ones(n);
  Eigen::VectorXd c = solve(p, w);
  for (int it = 0; it < kHuberIterations; ++it) {
    const Eigen::VectorXd r = residual(c);
    const double k = kHuberK * std::max(robust_scale(r, Eigen::VectorXd::Ones(n)), 1e-12);
    for (Eigen::Index i = 0; i < n; ++i) w(i) = std::abs(r(i)) <= k ? 1.0 : k / std::abs(r(i));
    c = solve(p, w);
  }

  // Drop > 3 MAD from the median residual, refit unweighted, repeat until stable.
  Eigen::VectorXd keep = Eigen::VectorXd::Ones(n);
  for (Eigen::Index round = 0; round < n; ++round) {
    const Eigen::VectorXd r = residual(c);
    const double threshold = std::max(kRejectSigmas * robust_scale(r, keep), min_rel_threshold);
    std::vector<double> kept;
    for (Eigen::Index i = 0; i < n; ++i)
      if (keep(i) > 0) kept.push_back(r(i));
    const double mid = median(kept);
    Eigen::VectorXd next = keep;
    for (Eigen::Index i = 0; i < n; ++i) next(i) = std::abs(r(i) - mid) <= threshold ? 1.0 : 0.0;
    if (next.sum() < double(p.a.cols() + 1)) break;  // would leave the fit undetermined
    const bool same = next == keep;
    keep = next;
    c = solve(p, keep);
    if (same) break;
  }

  LinearFit fit;
  const Eigen::VectorXd r = residual(c);
  fit.coef.assign(c.data(), c.data() + c.size());
  for (Eigen::Index i = 0; i < n; ++i) {
    fit.inlier.push_back(keep(i) > 0);
    fit.rel_residual.push_back(r(i));
  }
  return fit;
}

}  // namespace mhcsim::calib
