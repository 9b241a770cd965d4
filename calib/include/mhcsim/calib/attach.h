#pragma once
// Attaching a profile to a scenario: what every verb does when the scenario carries
// calibration_path (scenario [calibration] profile = "..." or --calibration).
#include <string>
#include <vector>

#include "mhcsim/specs.h"

namespace mhcsim::calib {

// Reads *s.calibration_path into s.calibration. Returns warnings (the profile was measured on
// another GPU than the scenario's, or on one the catalog does not know; a fit the scenario's GPU
// cannot give, implausible_fits); throws InputError for
// an unreadable, malformed or newer-schema profile. No-op without calibration_path.
std::vector<std::string> attach_calibration(Scenario& s);

// One line for verbs to print: "calibrated: <path> (NVIDIA H200, driver ..., 2026-...)".
std::string describe_calibration(const CalibrationProfile& profile);

}  // namespace mhcsim::calib
