// `mhcsim step`: roofline step-time composition of a training scenario (cost::step_estimate).
#include <memory>

#include "common.h"
#include "mhcsim/cost/step.h"
#include "mhcsim/reports/table.h"
#include "verbs.h"

namespace mhcsim::cli {

void setup_step(CLI::App& app) {
  struct Options {
    ScenarioOptions scn;
    OutputOptions out;
  };
  auto opts = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("step", "Estimate one training step: compute, communication, bubble, MFU");
  add_scenario_options(*cmd, opts->scn);
  add_output_options(*cmd, opts->out);
  cmd->callback([opts] {
    const Scenario s = load_scenario(opts->scn);
    const auto e = cost::step_estimate(s);
    const auto& c = e.chunk;
    const std::vector<reports::Quantity> q = {
        {"layers_per_chunk", "layers per pipeline chunk", e.layers_per_chunk, ""},
        {"chunk_forward_s", "chunk forward F (compute)", c.forward_seconds(), "ms", 1e3},
        {"chunk_backward_s", "chunk backward B (compute)", c.backward_seconds(), "ms", 1e3},
        {"chunk_backward_weight_s", "chunk weight gradients W", c.backward_weight_seconds(), "ms", 1e3},
        {"chunk_a2a_forward_s", "chunk all-to-all, forward", c.a2a_forward_seconds(), "ms", 1e3},
        {"chunk_exposed_a2a_s", "chunk exposed all-to-all (fwd+bwd)", e.exposed_a2a_seconds, "ms", 1e3},
        {"chunk_mhc_forward_s", "chunk mHC kernels, forward", c.mhc_forward_seconds, "ms", 1e3},
        {"chunk_pp_send_s", "chunk stage-boundary send", c.pp_send_seconds, "ms", 1e3},
        {"busy_s", "compute per rank", e.busy_seconds, "s"},
        {"bubble_s", "pipeline bubble", e.bubble_seconds, "s"},
        {"bubble_fraction", "bubble share of the step", e.bubble_fraction() * 100, "%", 1.0, 2},
        {"dp_sync_s", "exposed DP gradient sync", e.dp_sync_seconds, "s"},
        {"step_s", "step time", e.step_seconds, "s"},
        {"tokens_per_step", "tokens per step", e.tokens_per_step, "tokens", 1.0, 0},
        {"tokens_per_s", "throughput", e.tokens_per_second, "tokens/s", 1.0, 0},
        {"training_flops_per_token", "training FLOPs per token (non-causal)", e.training_flops_per_token, "GFLOP", 1e-9, 1},
        {"training_flops_per_token_causal", "training FLOPs per token (causal)", e.training_flops_per_token_causal, "GFLOP", 1e-9, 1},
        {"mfu", "MFU vs BF16 peak (non-causal)", e.mfu * 100, "%", 1.0, 2},
        {"mfu_causal", "MFU vs BF16 peak (causal)", e.mfu_causal * 100, "%", 1.0, 2},
        {"gpu_hours_per_1t_tokens", "GPU-hours per 1T tokens", e.gpu_hours_per_trillion_tokens, "K GPU-h", 1e-3, 1},
        {"gpu_hours_for_budget", "GPU-hours for the token budget", e.gpu_hours_for_budget, "M GPU-h", 1e-6, 3}};
    if (opts->out.json) return print_json(reports::quantities_to_json(q));
    reports::print_quantities(std::cout, "step estimate: " + s.name, q);
  });
}

}  // namespace mhcsim::cli
