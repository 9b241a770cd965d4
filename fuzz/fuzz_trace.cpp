// libFuzzer: the Chrome-trace reader, classifier and metrics (traces/). Seeds: fuzz/seeds/trace.
#include "targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mhcsim::fuzz::trace_input(data, size);
  return 0;
}
