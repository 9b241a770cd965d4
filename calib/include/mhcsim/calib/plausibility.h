#pragma once
// Fitted values no working GPU gives, checked against the datasheet: a benchmark that counted
// the wrong bytes, ran on a throttled or shared GPU, or a hand-edited profile would otherwise
// turn every prediction silently (a 4 GB/s "HBM" put a 16 s step at 3500 s).
#include <string>
#include <vector>

#include "mhcsim/calibration.h"
#include "mhcsim/specs.h"

namespace mhcsim::calib {

// Kernel bandwidths outside [kMinShareOfPeak, kMaxShareOfPeak] x the GPU's HBM peak, and
// intra-node collective bus bandwidths outside that band of its NVLink peak: one warning each,
// naming the fit, its value and the peak. (Inter-node fits depend on the NICs, which the
// profile's GPU does not say.)
std::vector<std::string> implausible_fits(const CalibrationProfile& profile, const GpuSpec& gpu);

// Below 5% of a peak is a benchmark measuring something else (launch-bound sizes, a wrong byte
// count); above 2x, the bytes were over-counted or the data sat in L2, not HBM.
inline constexpr double kMinShareOfPeak = 0.05;
inline constexpr double kMaxShareOfPeak = 2.0;

}  // namespace mhcsim::calib
