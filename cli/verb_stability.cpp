// `mhcsim stability`: what mHC buys (issue 19). The composite residual gain of unconstrained
// HC against mHC's Sinkhorn projection at each t_max in fp32 and bf16, over the scenario's depth
// (2 mappings per layer) and expansion rate n, for a random model of learned mappings or a
// mappings file dumped from a checkpoint. Table, or --json with the curves over depth.
#include <fmt/format.h>

#include <charconv>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common.h"
#include "mhcsim/api/stability.h"
#include "mhcsim/error.h"
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

// "1,3,5" as its decimal integers; api::stability checks their range and repeats. CLI11's own
// delimiter drops empty items, so "1,,2" would read as 1,2: the list is split here instead.
std::vector<int64_t> int_list(const std::string& text) {
  std::vector<int64_t> values;
  for (size_t start = 0;;) {
    const size_t comma = text.find(',', start);
    const std::string_view item =
        std::string_view(text).substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    int64_t value = 0;
    const auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), value);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size())
      throw InputError("", fmt::format("'{}': {}", text,
                                       item.empty() ? std::string("empty value (expected a,b,c)")
                                                    : fmt::format("'{}' is not a decimal integer", item)));
    values.push_back(value);
    if (comma == std::string::npos) return values;
    start = comma + 1;
  }
}

}  // namespace

void setup_stability(CLI::App& app) {
  auto o = std::make_shared<api::StabilityRequest>();
  auto iters_text = std::make_shared<std::string>();  // checked at parse time, read once a scenario loads
  auto* cmd = add_scenario_verb(app, "stability",
                                "Composite residual gain of HC vs mHC over depth, Sinkhorn t_max and precision",
                                [o, iters_text](const Scenario& s, const Output& out) {
                                  if (!iters_text->empty()) o->sinkhorn_iters = int_list(*iters_text);
                                  run_stability(s, out, *o);
                                });
  auto* n = cmd->add_option("--n", o->n, "Expansion rate n (default: model.mhc.n, or 4 for a plain residual)")
                ->check(key_flag("model.mhc.n"));
  auto* layers = cmd->add_option("--layers", o->layers, "Transformer layers, 2 mappings each (default: model.layers)")
                     ->check(key_flag("model.layers"));
  cmd->add_option("--sinkhorn-iters", *iters_text,
                  "Sinkhorn t_max values, comma-separated (default: 1,3,5,10,20 and model.mhc.sinkhorn_iters)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            try {
              (void)int_list(text);
              return "";
            } catch (const InputError& e) {
              return e.reason();
            }
          },
          ""));
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
