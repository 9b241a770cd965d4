// libFuzzer: kernel-patterns files (TOML and JSON) and the classifier built from them
// (traces/). Seeds: fuzz/seeds/patterns.
#include "targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mhcsim::fuzz::patterns_input(data, size);
  return 0;
}
