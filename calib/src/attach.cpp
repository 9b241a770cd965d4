#include "mhcsim/calib/attach.h"

#include <fmt/format.h>

#include "mhcsim/calib/gpu_match.h"
#include "mhcsim/calib/plausibility.h"
#include "mhcsim/calib/profile_json.h"

namespace mhcsim::calib {

std::vector<std::string> attach_calibration(Scenario& s) {
  if (!s.calibration_path) return {};
  CalibrationProfile profile = read_profile(*s.calibration_path);
  std::vector<std::string> warnings;
  const std::string scenario_key = catalog_key_for(s.hardware.gpu.name);
  if (profile.catalog_gpu.empty()) {
    warnings.push_back(
        fmt::format("calibration profile {} was measured on '{}', which matches no "
                    "catalog GPU: cannot check it against the scenario's {}",
                    profile.path, profile.gpu_name, s.hardware.gpu.name));
  } else if (profile.catalog_gpu != scenario_key) {
    warnings.push_back(
        fmt::format("calibration profile {} was measured on {} ({}) but the "
                    "scenario's GPU is {}: its fitted values describe another GPU",
                    profile.path, profile.gpu_name, profile.catalog_gpu, s.hardware.gpu.name));
  }
  for (auto& w : implausible_fits(profile, s.hardware.gpu)) warnings.push_back(profile.path + ": " + std::move(w));
  s.calibration = std::move(profile);
  return warnings;
}

std::string describe_calibration(const CalibrationProfile& p) {
  return fmt::format(
      "calibrated: {} ({}, driver {}, CUDA {}, measured {}; {} kernel, {} collective "
      "fits{})",
      p.path, p.gpu_name, p.driver_version, p.cuda_version, p.date, p.kernels.size(), p.collectives.size(),
      p.gemm_efficiency ? fmt::format(", GEMM efficiency {:.1f}%", 100 * *p.gemm_efficiency) : "");
}

}  // namespace mhcsim::calib
