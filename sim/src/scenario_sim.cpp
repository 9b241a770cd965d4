// Kept apart from simulate.cpp: only this file needs cost_models' chunk prices.
#include "mhcsim/cost/chunk_cost.h"
#include "mhcsim/error.h"
#include "mhcsim/cost/memory.h"
#include "mhcsim/cost/step.h"
#include "mhcsim/sim/simulate.h"

namespace mhcsim::sim {

StagePrices stage_prices(const Scenario& scenario) {
  const double overlap = scenario.parallel.overlap;
  // A training step's schedules run forward and backward passes; a serving iteration is forward
  // only, which `mhcsim serve` simulates request by request.
  if (scenario.workload.mode != WorkloadMode::Train)
    throw SpecError("workload.mode",
                    "simulate runs a training step's pipeline schedule; for a serving "
                    "scenario use `mhcsim serve` (request-level simulation)");
  const auto e = cost::step_estimate(scenario);
  // The hidden share of each stage-boundary transfer is left out, as step leaves it out.
  const double exposed_send = 1.0 - scenario.parallel.pp_overlap;
  auto priced = [&](const cost::ChunkCost& c) {
    PhasePrices prices = prices_from_chunk_cost(c, overlap);
    prices.pp_send_seconds *= exposed_send;
    return prices;
  };
  return {priced(e.middle_chunk), priced(e.last_chunk), e.dp_sync_seconds};
}

Simulation simulate(const Scenario& scenario) {
  const auto spec = schedule_spec_from(scenario.parallel);
  check_simulable(spec);  // schedule errors before pricing errors
  return simulate(spec, stage_prices(scenario));
}

}  // namespace mhcsim::sim
