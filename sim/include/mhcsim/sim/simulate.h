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
  ScheduleSpec spec;  // a training step's schedule (unset for serving)
  Program program;
  OpGraph graph;
  Timeline timeline;
  StepStats stats;  // over the whole timeline
  // Serving (forward_program): the iterations simulated, and the last one's terms on the pacing
  // rank, the steady state `step` prices (serving.h); stats.pacing_rank is then the rank with
  // the least bubble in that iteration. 0 and unset for a training step.
  int32_t iterations = 0;
  StepTerms iteration;
};

Simulation simulate(const ScheduleSpec& spec, const StagePrices& prices);
// Every stage at the same price, no gradient sync (the idealised pipeline of the formulas).
Simulation simulate(const ScheduleSpec& spec, const PhasePrices& prices);

// The prices `step` uses (cost::step_estimate): the middle chunk for every stage but the last,
// the last chunk (remaining layers + LM head) there, parallel.overlap of each all-to-all
// hidden, and the exposed DP gradient sync. Training scenarios (SpecError naming
// workload.mode otherwise; serving's are serving_stage_prices).
StagePrices stage_prices(const Scenario& scenario);
// A training scenario's step, or a serving scenario's forward-only iterations (serving.h).
Simulation simulate(const Scenario& scenario);
// Ops simulate(scenario) will create, about (schedule.h), and check_op_budget for it.
int64_t estimated_ops(const Scenario& scenario);
void check_op_budget(const Scenario& scenario, int64_t max_ops, const char* flag = "--max-sim-ops");

}  // namespace mhcsim::sim
