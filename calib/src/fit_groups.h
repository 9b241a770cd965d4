#pragma once
// Shared by the three fits: a group of measurements of one profile key, and the error summary
// of a fit over them.
#include <string>
#include <vector>
#include <utility>

#include "mhcsim/calib/calibrate.h"
#include "mhcsim/calib/robust_fit.h"
#include "mhcsim/specs.h"

namespace mhcsim::calib::detail {

using Group = std::vector<const Measurement*>;

struct ErrorSummary {
  int points = 0;         // inliers
  double median_pct = 0;  // |pred - meas| / meas over the inliers
  double max_pct = 0;
};
ErrorSummary summarize(const LinearFit& fit);

// "a.json: BM_x, BM_y (12 points, 1 outlier dropped)"
std::string describe_source(const Group& group, const LinearFit& fit);

// Robust fit; a fit that cannot be made becomes InputError naming the key and the files.
LinearFit fit_or_throw(const std::string& key, const Group& group, const std::vector<std::vector<double>>& rows);

// Two-column fit rows = {overhead term, size term}: coef = {overhead >= 0, seconds per unit
// size > 0}. A negative overhead (noise at small sizes) is refit as zero, and so is a class
// measured at one size only (noted in `notes`); a non-positive rate is an InputError (the
// times do not grow with the size).
LinearFit fit_overhead_and_rate(const std::string& key, const Group& group,
                                const std::vector<std::vector<double>>& rows, std::vector<std::string>& notes);

// Point rows for the report, predicted = rows[i] . coef.
void append_points(const std::string& key, const Group& group, const std::vector<std::vector<double>>& rows,
                   const std::vector<double>& sizes, const LinearFit& fit, std::vector<PointResult>& out);

// Copies the error summary and the source into a BandwidthFit or CollectiveFit.
template <class Fit>
void set_stats(Fit& f, const ErrorSummary& e, std::string source) {
  f.points = e.points;
  f.median_error_pct = e.median_pct;
  f.max_error_pct = e.max_pct;
  f.source = std::move(source);
}

void fit_bandwidth(const std::string& key, const Group& group, Calibration& out);
void fit_collective(const std::string& key, const Group& group, Calibration& out);
// `gpu`: the catalog entry (nullptr when the GPU matches none); runs after the bandwidth fits,
// whose hbm_copy fit the shape model uses.
void fit_gemm(const Group& group, const GpuSpec* gpu, Calibration& out);

}  // namespace mhcsim::calib::detail
