#pragma once
// The validated scenario as JSON (echoed by `mhcsim scenario --json`, embedded in reports and
// sweep outputs so every result says what it was computed from).
#include <nlohmann/json.hpp>

#include "mhcsim/specs.h"

namespace mhcsim::scenarios {

nlohmann::json to_json(const Scenario& s);

}  // namespace mhcsim::scenarios
