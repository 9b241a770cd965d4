#pragma once
// A shipped scenario (scenarios/NAME) with overrides, for the simulator's scenario tests.
#include <string>
#include <vector>

#include "mhcsim/scenarios/load.h"

namespace mhcsim::sim::test {

inline Scenario shipped(const std::string& name, const std::vector<scenarios::Override>& o = {}) {
  return scenarios::load_scenario(std::string(MHCSIM_SOURCE_DIR) + "/scenarios/" + name, o);
}

}  // namespace mhcsim::sim::test
