#pragma once
#include <vector>

#include "fields.h"
#include "mhcsim/specs.h"

namespace mhcsim::scenarios {

// Every key a scenario file may hold. hardware.gpu comes first: it seeds the hardware spec
// from the catalog, and the other hardware.* keys then override single values.
const std::vector<Field<Scenario>>& scenario_schema();

}  // namespace mhcsim::scenarios
