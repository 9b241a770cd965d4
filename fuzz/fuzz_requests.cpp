// libFuzzer: request files (serving/), streamed into the serving simulator. Seeds: fuzz/seeds/requests.
#include "targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mhcsim::fuzz::requests_input(data, size);
  return 0;
}
