// Kernel classes: t = t0 + bytes / bw over the sizes measured (roofline with a fixed launch
// and tail cost; the bytes are the kernel's analytical byte count from kernels/bench).
#include <fmt/format.h>

#include "fit_groups.h"
#include "mhcsim/error.h"
#include "mhcsim/units.h"

namespace mhcsim::calib::detail {

void fit_bandwidth(const std::string& key, const Group& group, Calibration& out) {
  std::vector<std::vector<double>> rows;
  std::vector<double> sizes;
  for (const auto* m : group) {
    if (!(m->bytes > 0))
      throw InputError(m->name, "no bytes_per_second (expected state.SetBytesProcessed)", {m->file, 0});
    rows.push_back({1.0, m->bytes});
    sizes.push_back(m->bytes);
  }
  const LinearFit fit = fit_overhead_and_rate(key, group, rows, out.warnings);
  BandwidthFit& f = out.profile.kernels[key];
  f.overhead_seconds = fit.coef[0];
  f.bandwidth_gbps = 1.0 / fit.coef[1] / kGB;
  set_stats(f, summarize(fit), describe_source(group, fit));
  append_points(key, group, rows, sizes, fit, out.points);
}

}  // namespace mhcsim::calib::detail
