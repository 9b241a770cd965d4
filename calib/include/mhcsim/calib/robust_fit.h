#pragma once
// Linear least squares in relative error with outlier rejection: measured times span several
// decades, so each row is weighted by 1 / y (a 1 us kernel counts as much as a 1 ms one).
// Huber IRLS gives a first estimate that one bad point cannot drag; then points further than
// 3 scaled MADs from the median residual are dropped and the rest refit by plain least squares,
// until no more points are dropped.
#include <vector>

namespace mhcsim::calib {

struct LinearFit {
  std::vector<double> coef;          // one per column
  std::vector<bool> inlier;          // per row
  std::vector<double> rel_residual;  // (y - pred) / y per row, every row (outliers included)
  int inliers() const;
};

// rows[i] = x_i (all the same length), y[i] > 0. `min_rel_threshold` floors the rejection
// threshold so exact data (MAD ~ 0) does not reject rounding noise. With as many rows as
// columns the fit is exact and nothing can be rejected. Throws std::invalid_argument when there
// are fewer rows than columns or the columns are collinear.
LinearFit robust_linear_fit(const std::vector<std::vector<double>>& rows, const std::vector<double>& y,
                            double min_rel_threshold = 0.01);

// Median of `v` (copy); 0 for an empty vector.
double median(std::vector<double> v);

}  // namespace mhcsim::calib
