#include "mhcsim/calib/report.h"

#include <algorithm>
#include <cmath>

#include "mhcsim/calib/robust_fit.h"
#include "mhcsim/units.h"

namespace mhcsim::calib {

ErrorStats error_stats(const std::vector<PointResult>& points) {
  ErrorStats s;
  std::vector<double> errors;
  for (const auto& p : points) {
    if (p.outlier) {
      ++s.outliers;
      continue;
    }
    errors.push_back(std::abs(p.error_pct()));
  }
  s.points = int(errors.size());
  if (errors.empty()) return s;
  for (double e : errors) s.mean_abs_pct += e / double(errors.size());
  s.median_abs_pct = median(errors);
  s.max_abs_pct = *std::max_element(errors.begin(), errors.end());
  return s;
}

reports::Table points_table(const Calibration& c) {
  reports::Table t("calibration: predicted vs measured per point (size: bytes; GEMM: FLOP)",
                   {{"benchmark", "benchmark"},
                    {"fit", "fit"},
                    {"size", "size", 0},
                    {"measured_s", "measured (us)", 3, 1.0 / kUs},
                    {"predicted_s", "predicted (us)", 3, 1.0 / kUs},
                    {"error_pct", "delta (%)", 2},
                    {"status", "status"}});
  for (const auto& p : c.points)
    t.add_row({p.benchmark, p.fit_key, p.size, p.measured_seconds, p.predicted_seconds, p.error_pct(),
               p.outlier ? std::string("outlier, not fitted") : p.detail});
  return t;
}

reports::Table fits_table(const Calibration& c) {
  reports::Table t(
      "calibration: fitted parameters (kernels t = t0 + bytes/bw; collectives "
      "t = alpha*steps + bus_bytes/bus_bw; gemm t = max(mainloop/eff, operands) + epilogue + "
      "launch, eff = plateau efficiency of the shape model)",
      {{"fit", "fit"},
       {"overhead_s", "t0/alpha (us)", 3, 1.0 / kUs},
       {"bandwidth_gbps", "bw (GB/s)", 1},
       {"efficiency", "eff (%)", 1, 100.0},
       {"points", "points"},
       {"median_error_pct", "median err (%)", 2},
       {"max_error_pct", "max err (%)", 2},
       {"source", "source"}});
  using reports::Cell;
  for (const auto& [key, f] : c.profile.kernels)
    t.add_row({key, f.overhead_seconds, f.bandwidth_gbps, Cell{}, int64_t{f.points}, f.median_error_pct,
               f.max_error_pct, f.source});
  for (const auto& [key, f] : c.profile.collectives)
    t.add_row(
        {key, f.alpha_seconds, f.bus_gbps, Cell{}, int64_t{f.points}, f.median_error_pct, f.max_error_pct, f.source});
  if (c.gemm && c.profile.gemm_efficiency)
    t.add_row({std::string("gemm"), Cell{}, Cell{}, *c.profile.gemm_efficiency, int64_t{c.gemm->points},
               c.gemm->median_error_pct, c.gemm->max_error_pct, c.gemm->source});
  return t;
}

std::vector<reports::Quantity> summary_quantities(const Calibration& c) {
  const ErrorStats s = error_stats(c.points);
  return {{"points", "points fitted", int64_t{s.points}, ""},
          {"outliers", "outliers dropped", int64_t{s.outliers}, ""},
          {"mean_abs_error_pct", "mean |error|", s.mean_abs_pct, "%", 1.0, 2},
          {"median_abs_error_pct", "median |error|", s.median_abs_pct, "%", 1.0, 2},
          {"max_abs_error_pct", "max |error|", s.max_abs_pct, "%", 1.0, 2},
          {"target", "target (median <= 5%, max <= 15%)", std::string(s.meets_target() ? "met" : "missed"), ""}};
}

}  // namespace mhcsim::calib
