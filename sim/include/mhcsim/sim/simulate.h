#pragma once
// One call from a schedule and a price list to a timeline and its statistics; and the same
// from a Scenario, priced by cost_models.
#include "mhcsim/sim/engine.h"
#include "mhcsim/sim/metrics.h"
#include "mhcsim/sim/op_graph.h"
#include "mhcsim/sim/prices.h"
#include "mhcsim/sim/schedule.h"

namespace mhcsim::sim {

struct Simulation {
  ScheduleSpec spec;
  Program program;
  OpGraph graph;
  Timeline timeline;
  StepStats stats;
};

Simulation simulate(const ScheduleSpec& spec, const StagePrices& prices);
// Every stage at the same price, no gradient sync (the idealised pipeline of the formulas).
Simulation simulate(const ScheduleSpec& spec, const PhasePrices& prices);

// The prices `step` uses (cost::step_estimate): the middle chunk for every stage but the last,
// the last chunk (remaining layers + LM head) there, parallel.overlap of each all-to-all
// hidden, and the exposed DP gradient sync. A serving scenario is a SpecError naming
// workload.mode (its forward-only iterations are `mhcsim serve`'s).
StagePrices stage_prices(const Scenario& scenario);
Simulation simulate(const Scenario& scenario);

}  // namespace mhcsim::sim
