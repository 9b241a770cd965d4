// `mhcsim memory`: memory per GPU (api/memory.h builds the answer).
#include "common.h"
#include "mhcsim/api/memory.h"
#include "verbs.h"

namespace mhcsim::cli {

void setup_memory(CLI::App& app) {
  add_scenario_verb(app, "memory", "Memory per GPU: weights, grads, optimizer, activations or KV cache",
                    [](const Scenario& s, const Output& out) {
                      print_quantities(out, "memory per GPU: " + s.name, api::memory_quantities(s),
                                       api::scenario_inputs(s));
                      require_fits(s);
                    });
}

}  // namespace mhcsim::cli
