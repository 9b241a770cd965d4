#pragma once
#include <cstdint>
#include <vector>

#include "fields.h"
#include "mhcsim/specs.h"

namespace mhcsim::scenarios {

// Upper bound of parallel.micro_batches, also for the count workload.global_batch_seqs derives.
inline constexpr int64_t kMaxMicroBatches = int64_t{1} << 20;

// Every key a scenario file may hold. hardware.gpu comes first: it seeds the hardware spec
// from the catalog, and the other hardware.* keys then override single values.
const std::vector<Field<Scenario>>& scenario_schema();

}  // namespace mhcsim::scenarios
