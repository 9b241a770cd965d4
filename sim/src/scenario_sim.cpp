// Kept apart from simulate.cpp: only this file needs cost_models' chunk_cost().
#include <string>

#include "mhcsim/error.h"
#include "mhcsim/sim/simulate.h"

namespace mhcsim::sim {

int64_t layers_per_chunk(const Scenario& scenario) {
  const auto& p = scenario.parallel;
  const int64_t layers = scenario.model.layers + p.extra_stage_layers;
  const int64_t stages = p.stage_count();
  require(stages >= 1 && layers >= stages, "parallel.pp",
          "needs at least one layer per pipeline stage (" + std::to_string(layers) +
              " layers incl. extra stage layers over " + std::to_string(stages) + " stages)");
  return (layers + stages - 1) / stages;
}

Simulation simulate(const Scenario& scenario) {
  const auto spec = schedule_spec_from(scenario.parallel);
  validate(spec);  // schedule errors before pricing errors
  const auto cost = cost::chunk_cost(scenario, layers_per_chunk(scenario));
  return simulate(spec, prices_from_chunk_cost(cost));
}

}  // namespace mhcsim::sim
