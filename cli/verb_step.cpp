// `mhcsim step`: one step of the scenario's workload (api/step.h builds the answer).
#include "common.h"
#include "mhcsim/api/step.h"
#include "verbs.h"

namespace mhcsim::cli {

void setup_step(CLI::App& app) {
  static bool ops = false;
  auto* cmd = add_scenario_verb(app, "step", "Estimate one step: training (compute, comm, bubble, MFU) or serving (decode/prefill)",
                    [](const Scenario& s, bool json) {
                      if (ops) return print_table(json, api::step_ops_table(s));
                      print_quantities(json, api::step_title(s), api::step_quantities(s));
                      require_fits(s);
                    });
  cmd->add_flag("--ops", ops, "List one layer's operations (GEMM shapes, forward / dgrad / wgrad time, saved activations)");
}

}  // namespace mhcsim::cli
