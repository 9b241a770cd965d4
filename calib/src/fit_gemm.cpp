// GEMM: t = flops / (efficiency x peak), flops = 2 M N K from the benchmark's shape args, peak
// = the catalog's dense tensor-core peak for the benchmark's precision. One efficiency is what
// the cost model uses; the report shows the achieved efficiency of every shape beside it.
#include <fmt/format.h>

#include "fit_groups.h"
#include "mhcsim/error.h"

namespace mhcsim::calib::detail {

void fit_gemm(const Group& group, double peak_bf16, double peak_fp8, Calibration& out) {
  const std::string key = "gemm";
  std::vector<std::vector<double>> rows;
  std::vector<double> flops;
  for (const auto* m : group) {
    const double f = 2.0 * require_arg(*m, "M") * require_arg(*m, "N") * require_arg(*m, "K");
    const double peak = m->kernel->precision == GemmPrecision::FP8 ? peak_fp8 : peak_bf16;
    require(peak > 0, m->name.c_str(),
            "no tensor-core peak for this GPU (its name matches no catalog entry; pass --gpu KEY)");
    rows.push_back({f / peak});  // seconds at 100% of peak
    flops.push_back(f);
  }
  const LinearFit fit = fit_or_throw(key, group, rows);
  const double efficiency = 1.0 / fit.coef[0];
  require(efficiency > 0 && efficiency <= 1.0, key.c_str(),
          fmt::format("fitted efficiency {:.3f} is outside (0, 1]: the shape args or the catalog "
                      "peak do not match the measurement", efficiency));
  out.profile.gemm_efficiency = efficiency;
  const size_t first = out.points.size();
  append_points(key, group, rows, flops, fit, out.points);
  for (size_t i = 0; i < group.size(); ++i)
    out.points[first + i].detail =
        fmt::format("achieved {:.1f}% of peak", 100.0 * rows[i][0] / group[i]->seconds);
  const ErrorSummary e = summarize(fit);
  out.gemm = GemmSummary{e.points, e.median_pct, e.max_pct, describe_source(group, fit)};
}

}  // namespace mhcsim::calib::detail
