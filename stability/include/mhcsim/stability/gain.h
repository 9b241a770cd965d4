#pragma once
// Composite signal gain of a stack of residual mappings (mHC paper, arXiv 2512.24880, 3.1 and
// Fig. 3/7, "Amax gain magnitude"). The residual part of x_{l+1} = H_res^l x_l + ... carries the
// input through l mappings as P_l = H_res^l ... H_res^1; its forward gain is the largest absolute
// row sum of P_l (the infinity norm: how much one output stream can grow), its backward gain the
// largest absolute column sum (the 1-norm: the same for a gradient flowing back). A doubly
// stochastic P has both equal to 1; unconstrained Hyper-Connections drift far from it.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mhcsim::stability {

// L matrices of n x n, each row-major, one mapping after the other: value(l, i, j) at
// values[(l * n + i) * n + j]. Mapping l acts on the state after mappings 0..l-1.
struct MappingStack {
  int64_t n = 0;
  int64_t layers = 0;
  std::vector<double> values;

  MappingStack() = default;
  MappingStack(int64_t n_, int64_t layers_)
      : n(n_), layers(layers_), values(static_cast<std::size_t>(n_ * n_ * layers_), 0.0) {}
  double* layer(int64_t l) { return values.data() + l * n * n; }
  const double* layer(int64_t l) const { return values.data() + l * n * n; }
};

// What one stack gives: the curves over depth l = 1..L and the spectral norm of P_L.
struct GainCurve {
  std::vector<double> forward;   // [l-1]: max_i sum_j |P_l[i][j]|
  std::vector<double> backward;  // [l-1]: max_j sum_i |P_l[i][j]|
  double max_forward = 0;        // maximum of the curve
  double max_backward = 0;
  double spectral_norm = 0;  // largest singular value of P_L (Eigen's JacobiSVD)

  double peak() const { return max_forward > max_backward ? max_forward : max_backward; }
};

// Fills `out` (its vectors are reused: no allocation once they have the size). The product is
// taken in double, so the curve shows what the mappings do, not the rounding of the product.
// Throws std::invalid_argument on an empty or inconsistent stack.
void composite_gain(const MappingStack& mappings, GainCurve& out);
GainCurve composite_gain(const MappingStack& mappings);

}  // namespace mhcsim::stability
