// `mhcsim a2a`: MoE all-to-all bytes per token and MoE layer, NVLink vs IB, and time (api/a2a.h).
#include <memory>

#include "common.h"
#include "mhcsim/api/a2a.h"
#include "verbs.h"

namespace mhcsim::cli {

void setup_a2a(CLI::App& app) {
  auto tokens_option = std::make_shared<int64_t>(0);
  auto* cmd = add_scenario_verb(
      app, "a2a", "MoE expert-parallel all-to-all: bytes per token, NVLink vs IB, time",
      [tokens_option](const Scenario& s, const Output& out) {
        auto inputs = api::scenario_inputs(s);
        inputs["tokens_per_gpu"] = *tokens_option > 0 ? nlohmann::json(*tokens_option) : nlohmann::json();
        print_quantities(out, "MoE all-to-all: " + s.name, api::a2a_quantities(s, *tokens_option), std::move(inputs));
      });
  cmd->add_option("--tokens", *tokens_option,
                  "Tokens per GPU per MoE layer (default: one micro-batch over TP; serving: one micro-batch of the "
                  "iteration over TP)")
      ->check(int_flag(1, int64_t{1} << 32));  // the range of workload.seq_len and context_len
}

}  // namespace mhcsim::cli
