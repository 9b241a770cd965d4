// libFuzzer: benchmark JSON fitted into a calibration profile, and calibration profiles (calib/).
// Seeds: fuzz/seeds/calibration.
#include "targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mhcsim::fuzz::calibration_input(data, size);
  return 0;
}
