#include "mhcsim/stability/gain.h"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mhcsim::stability {

void composite_gain(const MappingStack& mappings, GainCurve& out) {
  const int64_t n = mappings.n, depth = mappings.layers;
  if (n < 1 || depth < 1 || static_cast<int64_t>(mappings.values.size()) != n * n * depth)
    throw std::invalid_argument("composite_gain: the stack needs n >= 1, layers >= 1 and n*n*layers values");
  out.forward.resize(static_cast<size_t>(depth));
  out.backward.resize(static_cast<size_t>(depth));
  // P_0 = I; P_l = H^l P_{l-1} (x_{l+1} = H_res^l x_l, mHC paper Eq. 3).
  Eigen::MatrixXd p = Eigen::MatrixXd::Identity(n, n), next(n, n);
  std::vector<double> column_sums(static_cast<size_t>(n));
  out.max_forward = out.max_backward = 0;
  bool overflowed = false;
  for (int64_t l = 0; l < depth; ++l) {
    // Past double's range the product is no longer a number (inf - inf): its gain is beyond
    // 1.8e308 from there on, which is what the curve says.
    if (overflowed) {
      out.forward[static_cast<size_t>(l)] = out.backward[static_cast<size_t>(l)] = INFINITY;
      continue;
    }
    const double* h = mappings.layer(l);
    double forward = 0;
    std::fill(column_sums.begin(), column_sums.end(), 0.0);
    for (int64_t i = 0; i < n; ++i) {
      double row = 0;
      for (int64_t j = 0; j < n; ++j) {
        double v = 0;
        for (int64_t k = 0; k < n; ++k) v += h[i * n + k] * p(k, j);
        next(i, j) = v;
        row += std::abs(v);
        column_sums[static_cast<size_t>(j)] += std::abs(v);
      }
      forward = std::max(forward, row);  // infinity norm: max absolute row sum
    }
    double backward = *std::max_element(column_sums.begin(), column_sums.end());  // 1-norm
    // Any entry past the range (an inf, or the nan of inf - inf, which max() would skip).
    overflowed = !next.allFinite();
    if (overflowed) forward = backward = INFINITY;
    p.swap(next);
    out.forward[static_cast<size_t>(l)] = forward;
    out.backward[static_cast<size_t>(l)] = backward;
    out.max_forward = std::max(out.max_forward, forward);
    out.max_backward = std::max(out.max_backward, backward);
  }
  // 2-norm = largest singular value; for n x n with n <= 64 a Jacobi SVD is exact enough and cheap.
  out.spectral_norm = overflowed ? INFINITY : Eigen::JacobiSVD<Eigen::MatrixXd>(p).singularValues()(0);
}

GainCurve composite_gain(const MappingStack& mappings) {
  GainCurve out;
  composite_gain(mappings, out);
  return out;
}

}  // namespace mhcsim::stability
