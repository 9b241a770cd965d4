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

Simulation simulate(const ScheduleSpec& spec, const PhasePrices& prices);

// Prices one chunk of cost::layers_per_chunk(scenario) layers with cost::chunk_cost and
// simulates the scenario's schedule.
Simulation simulate(const Scenario& scenario);

}  // namespace mhcsim::sim
