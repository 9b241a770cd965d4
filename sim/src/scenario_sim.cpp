// Kept apart from simulate.cpp: only this file needs cost_models' chunk prices.
#include <fmt/format.h>

#include "mhcsim/cost/chunk_cost.h"
#include "mhcsim/error.h"
#include "mhcsim/cost/memory.h"
#include "mhcsim/cost/step.h"
#include "mhcsim/sim/serving.h"
#include "mhcsim/sim/simulate.h"

namespace mhcsim::sim {

StagePrices stage_prices(const Scenario& scenario) {
  const double overlap = scenario.parallel.overlap;
  // A serving iteration is forward only, priced per micro-batch (serving.h).
  if (scenario.workload.mode != WorkloadMode::Train)
    throw SpecError("workload.mode", "a training step's prices need mode = \"train\"");
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
  if (scenario.workload.mode == WorkloadMode::Serve) return simulate_serving(scenario);
  const auto spec = schedule_spec_from(scenario.parallel);
  check_simulable(spec);  // schedule errors before pricing errors
  return simulate(spec, stage_prices(scenario));
}

int64_t estimated_ops(const Scenario& scenario) {
  return scenario.workload.mode == WorkloadMode::Serve ? estimated_ops(serving_plan(scenario))
                                                       : estimated_ops(schedule_spec_from(scenario.parallel));
}

void check_op_budget(const Scenario& scenario, int64_t max_ops, const char* flag) {
  if (scenario.workload.mode != WorkloadMode::Serve)
    return check_op_budget(schedule_spec_from(scenario.parallel), max_ops, flag);
  const auto plan = serving_plan(scenario);
  if (estimated_ops(plan) > max_ops)
    throw InputError("parallel.pp", fmt::format("{}, more than {} allows ({}; expected a larger {})",
                                                describe_ops(plan), flag, max_ops, flag));
}

}  // namespace mhcsim::sim
