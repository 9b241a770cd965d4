#include "mhcsim/calib/plausibility.h"

#include <fmt/format.h>

namespace mhcsim::calib {
namespace {

void check(std::vector<std::string>& out, const std::string& what, double gbps, double peak_gbps, const char* peak_name,
           const std::string& gpu) {
  if (!(peak_gbps > 0) || (gbps >= kMinShareOfPeak * peak_gbps && gbps <= kMaxShareOfPeak * peak_gbps)) return;
  out.push_back(fmt::format(
      "{}: {:.4g} GB/s is {:.3g}% of the {}'s {:.4g} GB/s {} peak, outside the {:g}-{:g}% "
      "a working GPU gives: check the benchmark's byte count and sizes",
      what, gbps, 100 * gbps / peak_gbps, gpu, peak_gbps, peak_name, 100 * kMinShareOfPeak, 100 * kMaxShareOfPeak));
}

}  // namespace

std::vector<std::string> implausible_fits(const CalibrationProfile& profile, const GpuSpec& gpu) {
  std::vector<std::string> out;
  for (const auto& [key, fit] : profile.kernels)
    check(out, "kernels." + key, fit.bandwidth_gbps, gpu.hbm_gb_per_s, "HBM", gpu.name);
  for (const auto& [key, fit] : profile.collectives)
    if (key.find("_intra") != std::string::npos)
      check(out, "collectives." + key, fit.bus_gbps, gpu.nvlink_gb_per_s, "NVLink", gpu.name);
  return out;
}

}  // namespace mhcsim::calib
