// libFuzzer: the scenario parser (scenarios/load.h) and the models that price a scenario
// (cost_models, sim). Seeds: scenarios/*.toml.
#include "targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  mhcsim::fuzz::scenario_input(data, size);
  return 0;
}
