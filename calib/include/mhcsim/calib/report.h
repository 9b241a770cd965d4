#pragma once
// calibrate --report: predicted vs measured per point (calculon llm-validation style: a row per
// point with its error, then mean / median / max), and the fitted parameters.
#include <vector>

#include "mhcsim/calib/calibrate.h"
#include "mhcsim/reports/table.h"

namespace mhcsim::calib {

// The target after calibration.
inline constexpr double kTargetMedianErrorPct = 5.0;
inline constexpr double kTargetMaxErrorPct = 15.0;

struct ErrorStats {
  int points = 0;  // inliers
  int outliers = 0;
  double mean_abs_pct = 0;
  double median_abs_pct = 0;
  double max_abs_pct = 0;
  bool meets_target() const {
    return points > 0 && median_abs_pct <= kTargetMedianErrorPct && max_abs_pct <= kTargetMaxErrorPct;
  }
};

// Over the points the fits kept (outliers are listed but not counted).
ErrorStats error_stats(const std::vector<PointResult>& points);

reports::Table points_table(const Calibration& c);
reports::Table fits_table(const Calibration& c);
std::vector<reports::Quantity> summary_quantities(const Calibration& c);

}  // namespace mhcsim::calib
