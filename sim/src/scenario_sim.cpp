// Kept apart from simulate.cpp: only this file needs cost_models' chunk_cost().
#include "mhcsim/cost/chunk_cost.h"
#include "mhcsim/cost/memory.h"
#include "mhcsim/sim/simulate.h"

namespace mhcsim::sim {

Simulation simulate(const Scenario& scenario) {
  const auto spec = schedule_spec_from(scenario.parallel);
  validate(spec);  // schedule errors before pricing errors
  const auto cost = cost::chunk_cost(scenario, cost::layers_per_chunk(scenario));
  return simulate(spec, prices_from_chunk_cost(cost));
}

}  // namespace mhcsim::sim
