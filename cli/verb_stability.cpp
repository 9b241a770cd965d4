// `mhcsim stability`: what mHC buys (issue 19). The composite residual gain of unconstrained
// HC against mHC's Sinkhorn projection at each t_max in fp32 and bf16, over the scenario's depth
// (2 mappings per layer) and expansion rate n, for a random model of learned mappings or a
// mappings file dumped from a checkpoint. Table, or --json with the curves over depth.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <memory>

#include "common.h"
#include "mhcsim/error.h"
#include "mhcsim/stability/mappings_file.h"
#include "mhcsim/stability/study.h"
#include "verbs.h"

namespace mhcsim::cli {
namespace {

// Each transformer layer has two residual sublayers (attention, FFN/MoE), each with its own
// H_res (mHC paper Fig. 1 and Eq. 3): the 27B model's 30 layers are 60 mappings.
constexpr int64_t kMappingsPerLayer = 2;

struct StabilityOptions {
  int64_t n = 0;                        // 0: the scenario's model.mhc.n
  int64_t layers = 0;                   // 0: the scenario's model.layers
  std::vector<int64_t> sinkhorn_iters;  // empty: 1,3,5,10,20 and the scenario's t_max
  double noise = stability::kPaperHcNoise;
  int64_t samples = 1000;
  int64_t seed = 1;
  std::string mappings;
};

std::vector<int> iteration_list(const StabilityOptions& o, const Scenario& s) {
  std::vector<int64_t> t = o.sinkhorn_iters;
  if (t.empty()) t = {1, 3, 5, 10, 20, s.model.sinkhorn_iters};
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  return {t.begin(), t.end()};
}

reports::Table gain_table(const std::string& title, const std::vector<stability::VariantGain>& results) {
  reports::Table t(title, {{"mapping", "mapping"},
                           {"sinkhorn_iters", "t_max"},
                           {"precision", "Sinkhorn"},
                           {"gain_median", "peak gain median (x)", 4},
                           {"gain_p99", "p99 (x)", 4},
                           {"gain_max", "max (x)", 4},
                           {"forward_gain_median", "forward median (x)", 4},
                           {"backward_gain_median", "backward median (x)", 4},
                           {"spectral_norm_median", "spectral norm median (x)", 4}});
  for (const auto& r : results) {
    const bool hc = r.variant.kind == stability::MappingKind::HC;
    t.add_row({std::string(stability::to_string(r.variant.kind)),
               hc ? reports::Cell{} : reports::Cell{int64_t{r.variant.sinkhorn_iters}},
               std::string(stability::precision_name(r.variant.kind)), r.peak.median, r.peak.p99, r.peak.max,
               r.max_forward.median, r.max_backward.median, r.spectral_norm.median});
  }
  return t;
}

// Median of max(forward, backward) at depths 1, 2, 4, ... and L, for HC and mHC at the
// scenario's t_max (fp32, bf16).
reports::Table depth_table(const std::vector<stability::VariantGain>& results, int t_max, int64_t depth) {
  const auto find = [&](stability::MappingKind kind) -> const stability::VariantGain* {
    for (const auto& r : results)
      if (r.variant.kind == kind && (kind == stability::MappingKind::HC || r.variant.sinkhorn_iters == t_max))
        return &r;
    return nullptr;
  };
  const auto* hc = find(stability::MappingKind::HC);
  const auto* fp32 = find(stability::MappingKind::MhcFp32);
  const auto* bf16 = find(stability::MappingKind::MhcBf16);
  reports::Table t(fmt::format("Median gain max(forward, backward) against depth, mHC at t_max = {}", t_max),
                   {{"depth_mappings", "depth (mappings)"},
                    {"hc_gain_median", "HC (x)", 4},
                    {"mhc_fp32_gain_median", "mHC fp32 (x)", 4},
                    {"mhc_bf16_gain_median", "mHC bf16 (x)", 4}});
  const auto at = [](const stability::VariantGain* r, int64_t l) -> reports::Cell {
    if (!r) return {};
    const auto k = static_cast<size_t>(l - 1);
    return std::max(r->forward[k].median, r->backward[k].median);
  };
  for (int64_t l = 1; l <= depth; l = l * 2 > depth && l < depth ? depth : l * 2)
    t.add_row({l, at(hc, l), at(fp32, l), at(bf16, l)});
  return t;
}

nlohmann::json curve_json(const stability::VariantGain& r) {
  nlohmann::json c;
  const auto column = [&](const std::vector<stability::Distribution>& d, double stability::Distribution::*field) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& x : d) a.push_back(x.*field);
    return a;
  };
  c["forward_gain_median"] = column(r.forward, &stability::Distribution::median);
  c["forward_gain_p99"] = column(r.forward, &stability::Distribution::p99);
  c["forward_gain_max"] = column(r.forward, &stability::Distribution::max);
  c["backward_gain_median"] = column(r.backward, &stability::Distribution::median);
  c["backward_gain_p99"] = column(r.backward, &stability::Distribution::p99);
  c["backward_gain_max"] = column(r.backward, &stability::Distribution::max);
  return c;
}

void run_stability(const Scenario& s, const Output& out, const StabilityOptions& o) {
  const std::vector<int> iters = iteration_list(o, s);
  const auto variants = stability::standard_variants(iters);
  const int t_max = static_cast<int>(s.model.sinkhorn_iters);
  std::vector<stability::VariantGain> results;
  int64_t n = 0, depth = 0, samples = 1;
  std::string source;
  if (!o.mappings.empty()) {
    const auto raw = stability::read_mappings_file(o.mappings);
    n = raw.n;
    depth = raw.layers;
    source = fmt::format("{} ({} mappings, n = {})", o.mappings, depth, n);
    results = stability::stack_study(raw, variants);
  } else {
    n = o.n > 0 ? o.n : (s.model.mhc_n > 1 ? s.model.mhc_n : 4);
    depth = kMappingsPerLayer * (o.layers > 0 ? o.layers : s.model.layers);
    samples = o.samples;
    source = fmt::format("random model: {} I + {} N(0, 1), {} samples, seed {}", stability::kIdentityBias, o.noise,
                         samples, o.seed);
    const stability::RandomModel model{n, depth, stability::kIdentityBias, o.noise};
    results = stability::random_study(model, samples, static_cast<uint64_t>(o.seed), variants);
  }
  const reports::Table gains = gain_table(
      fmt::format("Composite residual gain over {} mappings, n = {}: {}; {}", depth, n, s.name, source), results);
  if (out.json) {
    nlohmann::json doc;
    doc["source"] = o.mappings.empty() ? "random" : "file";
    if (!o.mappings.empty()) doc["mappings_file"] = o.mappings;
    doc["n"] = n;
    doc["depth_mappings"] = depth;
    doc["samples"] = samples;
    if (o.mappings.empty()) {
      doc["noise"] = o.noise;
      doc["identity_bias"] = stability::kIdentityBias;
      doc["seed"] = o.seed;
    }
    doc["scenario_sinkhorn_iters"] = t_max;
    doc["variants"] = gains.to_json();
    for (size_t k = 0; k < results.size(); ++k) doc["variants"][k]["curve"] = curve_json(results[k]);
    nlohmann::json inputs = {{"n", n},
                             {"mappings_file", o.mappings.empty() ? nlohmann::json() : nlohmann::json(o.mappings)},
                             {"samples", samples},
                             {"seed", o.seed},
                             {"noise", o.noise}};
    return out.print_document(std::move(inputs), std::move(doc));
  }
  gains.print_text(std::cout);
  std::cout << "# peak gain: max over depth of max(forward, backward); forward = max absolute row sum, backward = "
               "max absolute column sum of H_res^l ... H_res^1 (mHC paper Fig. 3: HC ~3000, mHC ~1.6 at 27B)\n\n";
  depth_table(results, t_max, depth).print_text(std::cout);
}

}  // namespace

void setup_stability(CLI::App& app) {
  auto o = std::make_shared<StabilityOptions>();
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
                    ->check(number_flag(0, 10))
                    ->capture_default_str();
  auto* samples = cmd->add_option("--samples", o->samples, "Draws of the random model")
                      ->check(int_flag(1, 1'000'000))
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
