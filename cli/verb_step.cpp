// `mhcsim step`: one step of the scenario's workload (api/step.h builds the answer).
#include "common.h"
#include "mhcsim/api/step.h"
#include "verbs.h"

namespace mhcsim::cli {

void setup_step(CLI::App& app) {
  static bool ops = false;
  auto* cmd = add_scenario_verb(app, "step",
                                "Estimate one step: training (compute, comm, bubble, MFU) or serving (decode/prefill)",
                                [](const Scenario& s, const Output& out) {
                                  auto inputs = api::scenario_inputs(s);
                                  inputs["ops"] = ops;
                                  if (ops) return print_table(out, api::step_ops_table(s), std::move(inputs));
                                  print_quantities(out, api::step_title(s), api::step_quantities(s), std::move(inputs));
                                  require_fits(s);
                                });
  cmd->add_flag("--ops", ops,
                "List one layer's operations (GEMM shapes, forward / dgrad / wgrad time, saved activations)");
}

}  // namespace mhcsim::cli
