#pragma once
// `simulate`: the scenario's pipeline schedule through the event-driven simulator (ops priced
// by cost_models per stage), the step in the terms `step` uses (sim/step_terms.h), per rank,
// and against `step` with the modelled reasons for any difference (sim/versus_step.h); an
// optional Chrome trace for Perfetto.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mhcsim/reports/table.h"
#include "mhcsim/sim/schedule.h"
#include "mhcsim/sim/simulate.h"
#include "mhcsim/sim/trace.h"
#include "mhcsim/sim/versus_step.h"
#include "mhcsim/specs.h"

namespace mhcsim::api {

struct SimulateOptions {
  std::string trace_path;  // empty: no trace; .gz: gzip
  int64_t max_sim_ops = sim::kDefaultMaxSimOps;
  // How errors name the two options (the CLI's flags, or a binding's argument names).
  const char* trace_option = "--trace";
  const char* max_sim_ops_option = "--max-sim-ops";
  bool force = false;  // replace an existing trace, if mhcsim wrote it
};

struct SimulateRun {
  sim::Simulation simulation;
  std::string trace_path;    // as asked; empty when no trace was written
  sim::TraceCounts trace{};  // what the trace holds
};

// Checks the trace path and the op budget before the run (InputError naming the option),
// simulates, and writes the trace when asked.
SimulateRun simulate(const Scenario& s, const SimulateOptions& options);

std::vector<reports::Quantity> simulate_summary(const Scenario& s, const sim::Simulation& sim);
reports::Table simulate_ranks(const sim::Simulation& sim);
// Simulated vs analytic, each row adding one refinement, and the one-line verdict.
reports::Table versus_table(const sim::VersusStep& v);
std::string versus_verdict(const sim::VersusStep& v);

// The summary's keys, "ranks", "versus_step" (training only) and the trace's path and counts.
nlohmann::json to_json(const Scenario& s, const SimulateRun& run);

}  // namespace mhcsim::api
