// libFuzzer: mHC mappings files (.npy and JSON) and the stability study (stability/).
// Seeds: fuzz/seeds/mappings.
#include "targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mhcsim::fuzz::mappings_input(data, size);
  return 0;
}
