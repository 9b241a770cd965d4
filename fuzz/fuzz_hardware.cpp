// libFuzzer: hardware files (scenarios/src/catalog.cpp) and the models on their GPUs.
// Seeds: scenarios/hardware (the shipped catalog).
#include "targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mhcsim::fuzz::hardware_input(data, size);
  return 0;
}
