// `mhcsim bubble`: every pipeline schedule at the scenario's PP and micro-batches (api/bubble.h).
#include "common.h"
#include "mhcsim/api/bubble.h"
#include "verbs.h"

namespace mhcsim::cli {

void setup_bubble(CLI::App& app) {
  add_scenario_verb(
      app, "bubble", "Pipeline bubble and per-rank memory for every schedule",
      [](const Scenario& s, const Output& out) { print_table(out, api::bubble_table(s), api::scenario_inputs(s)); });
}

}  // namespace mhcsim::cli
