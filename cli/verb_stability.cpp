// `mhcsim stability`: what mHC buys (issue 19). The composite residual gain of unconstrained
// HC against mHC's Sinkhorn projection at each t_max in fp32 and bf16, over the scenario's depth
// (2 mappings per layer) and expansion rate n, for a random model of learned mappings or a
// mappings file dumped from a checkpoint. Table, or --json with the curves over depth.
#include <iostream>
#include <limits>
#include <memory>

#include "common.h"
#include "mhcsim/api/stability.h"
#include "verbs.h"

namespace mhcsim::cli {
namespace {

void run_stability(const Scenario& s, const Output& out, const api::StabilityRequest& r) {
  const auto a = api::stability(s, r);
  if (out.json) return out.print_document(api::stability_inputs(r, a), api::to_json(r, a));
  a.gains.print_text(std::cout);
  std::cout << "# peak gain: max over depth of max(forward, backward); forward = max absolute row sum, backward = "
               "max absolute column sum of H_res^l ... H_res^1 (mHC paper Fig. 3: HC ~3000, mHC ~1.6 at 27B)\n\n";
  a.depth.print_text(std::cout);
}

}  // namespace

void setup_stability(CLI::App& app) {
  auto o = std::make_shared<api::StabilityRequest>();
  auto* cmd = add_scenario_verb(app, "stability",
                                "Composite residual gain of HC vs mHC over depth, Sinkhorn t_max and precision",
                                [o](const Scenario& s, const Output& out) { run_stability(s, out, *o); });
  auto* n = cmd->add_option("--n", o->n, "Expansion rate n (default: model.mhc.n, or 4 for a plain residual)")
                ->check(key_flag("model.mhc.n"));
  auto* layers = cmd->add_option("--layers", o->layers, "Transformer layers, 2 mappings each (default: model.layers)")
                     ->check(key_flag("model.layers"));
  cmd->add_option("--sinkhorn-iters", o->sinkhorn_iters,
                  "Sinkhorn t_max values, comma-separated (default: 1,3,5,10,20 and model.mhc.sinkhorn_iters)")
      ->delimiter(',')
      ->check(key_flag("model.mhc.sinkhorn_iters"));
  auto* noise = cmd->add_option("--noise", o->noise,
                                "Scale of the random model's drift: raw = I + noise N(0, 1) (default: the scale at "
                                "which HC's median peak gain is ~3000 at the 27B depth, stability/README.md)")
                    ->check(number_flag(0, api::kMaxStabilityNoise))
                    ->capture_default_str();
  auto* samples = cmd->add_option("--samples", o->samples, "Draws of the random model")
                      ->check(int_flag(1, api::kMaxStabilitySamples))
                      ->capture_default_str();
  auto* seed = cmd->add_option("--seed", o->seed, "Seed of the random model")
                   ->check(int_flag(0, std::numeric_limits<int64_t>::max()))
                   ->capture_default_str();
  cmd->add_option("--mappings", o->mappings,
                  "Raw per-layer matrices, L x n x n (JSON array or .npy float32/float64), instead of the random model")
      ->check(path_flag("a JSON or .npy file"))
      ->excludes(n)
      ->excludes(layers)
      ->excludes(noise)
      ->excludes(samples)
      ->excludes(seed);
}

}  // namespace mhcsim::cli
