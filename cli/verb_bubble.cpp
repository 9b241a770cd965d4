// `mhcsim bubble`: every pipeline schedule at the scenario's PP and micro-batches (api/bubble.h).
#include "common.h"
#include "mhcsim/api/bubble.h"
#include "verbs.h"

namespace mhcsim::cli {

void setup_bubble(CLI::App& app) {
  add_scenario_verb(app, "bubble", "Pipeline bubble and per-rank memory for every schedule",
                    [](const Scenario& s, bool json) { print_table(json, api::bubble_table(s)); });
}

}  // namespace mhcsim::cli
