#include "mhcsim/api/stability.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "mhcsim/error.h"
#include "mhcsim/scenarios/load.h"
#include "mhcsim/stability/mappings_file.h"

namespace mhcsim::api {

namespace {
// Each transformer layer has two residual sublayers (attention, FFN/MoE), each with its own
// H_res (mHC paper Fig. 1 and Eq. 3): the 27B model's 30 layers are 60 mappings.
constexpr int64_t kMappingsPerLayer = 2;

constexpr ArgumentName kN{"--n", "n"}, kLayers{"--layers", "layers"},
    kSinkhornIters{"--sinkhorn-iters", "sinkhorn_iters"}, kNoise{"--noise", "noise"}, kSamples{"--samples", "samples"},
    kSeed{"--seed", "seed"}, kMappings{"--mappings", "mappings"};
constexpr ArgumentName kAll[] = {kN, kLayers, kSinkhornIters, kNoise, kSamples, kSeed, kMappings};

// An argument standing for a scenario key, held to the key's type and range.
void require_key_value(int64_t value, const char* key, const ArgumentName& a, ArgumentNames names) {
  if (auto problem = scenarios::key_value_problem(key, std::to_string(value)); !problem.empty())
    throw InputError(a.in(names), problem);
}

void check(const StabilityRequest& r) {
  const auto names = r.names;
  if (r.n != 0) require_key_value(r.n, "model.mhc.n", kN, names);
  if (r.layers != 0) require_key_value(r.layers, "model.layers", kLayers, names);
  for (size_t i = 0; i < r.sinkhorn_iters.size(); ++i) {
    const int64_t t = r.sinkhorn_iters[i];
    require_key_value(t, "model.mhc.sinkhorn_iters", kSinkhornIters, names);
    if (std::find(r.sinkhorn_iters.begin(), r.sinkhorn_iters.begin() + static_cast<std::ptrdiff_t>(i), t) !=
        r.sinkhorn_iters.begin() + static_cast<std::ptrdiff_t>(i))
      throw InputError(kSinkhornIters.in(names), fmt::format("{} given twice", t));
  }
  if (!std::isfinite(r.noise) || r.noise < 0 || r.noise > kMaxStabilityNoise)
    throw InputError(kNoise.in(names),
                     fmt::format("{} is out of range (expected number in [0, {}])", r.noise, kMaxStabilityNoise));
  if (r.samples < 1 || r.samples > kMaxStabilitySamples)
    throw InputError(kSamples.in(names),
                     fmt::format("{} is out of range (expected integer in [1, {}])", r.samples, kMaxStabilitySamples));
  if (r.seed < 0) throw InputError(kSeed.in(names), fmt::format("{} is out of range (expected integer >= 0)", r.seed));
  const StabilityRequest defaults;
  if (!r.mappings.empty() && (r.n != 0 || r.layers != 0 || r.noise != defaults.noise || r.samples != defaults.samples ||
                              r.seed != defaults.seed))
    throw InputError(kMappings.in(names),
                     fmt::format("a mappings file has its own n and depth and no random model (expected {} without "
                                 "{}, {}, {}, {} or {})",
                                 kMappings.in(names), kN.in(names), kLayers.in(names), kNoise.in(names),
                                 kSamples.in(names), kSeed.in(names)));
}

std::vector<int> iteration_list(const StabilityRequest& r, const Scenario& s) {
  std::vector<int64_t> t = r.sinkhorn_iters;
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

// stability(), its errors keyed by the CLI's flags.
StabilityAnswer study(const Scenario& s, const StabilityRequest& r) {
  check(r);
  const auto variants = stability::standard_variants(iteration_list(r, s));
  StabilityAnswer a;
  a.scenario_sinkhorn_iters = static_cast<int>(s.model.sinkhorn_iters);
  std::string source;
  if (!r.mappings.empty()) {
    const auto raw = stability::read_mappings_file(r.mappings);
    a.n = raw.n;
    a.depth_mappings = raw.layers;
    source = fmt::format("{} ({} mappings, n = {})", r.mappings, a.depth_mappings, a.n);
    a.results = stability::stack_study(raw, variants);
  } else {
    a.n = r.n > 0 ? r.n : (s.model.mhc_n > 1 ? s.model.mhc_n : 4);
    a.depth_mappings = kMappingsPerLayer * (r.layers > 0 ? r.layers : s.model.layers);
    a.samples = r.samples;
    source = fmt::format("random model: {} I + {} N(0, 1), {} samples, seed {}", stability::kIdentityBias, r.noise,
                         a.samples, r.seed);
    const stability::RandomModel model{a.n, a.depth_mappings, stability::kIdentityBias, r.noise};
    a.results = stability::random_study(model, a.samples, static_cast<uint64_t>(r.seed), variants);
  }
  a.gains = gain_table(
      fmt::format("Composite residual gain over {} mappings, n = {}: {}; {}", a.depth_mappings, a.n, s.name, source),
      a.results);
  a.depth = depth_table(a.results, a.scenario_sinkhorn_iters, a.depth_mappings);
  return a;
}

}  // namespace

StabilityAnswer stability(const Scenario& s, const StabilityRequest& request) {
  return with_named_errors(request.names, kAll, [&] { return study(s, request); });
}

nlohmann::json stability_inputs(const StabilityRequest& r, const StabilityAnswer& a) {
  return {{"n", a.n},
          {"mappings_file", r.mappings.empty() ? nlohmann::json() : nlohmann::json(r.mappings)},
          {"samples", a.samples},
          {"seed", r.seed},
          {"noise", r.noise}};
}

nlohmann::json to_json(const StabilityRequest& r, const StabilityAnswer& a) {
  nlohmann::json doc;
  doc["source"] = r.mappings.empty() ? "random" : "file";
  if (!r.mappings.empty()) doc["mappings_file"] = r.mappings;
  doc["n"] = a.n;
  doc["depth_mappings"] = a.depth_mappings;
  doc["samples"] = a.samples;
  if (r.mappings.empty()) {
    doc["noise"] = r.noise;
    doc["identity_bias"] = stability::kIdentityBias;
    doc["seed"] = r.seed;
  }
  doc["scenario_sinkhorn_iters"] = a.scenario_sinkhorn_iters;
  doc["variants"] = a.gains.to_json();
  for (size_t k = 0; k < a.results.size(); ++k) doc["variants"][k]["curve"] = curve_json(a.results[k]);
  return doc;
}

}  // namespace mhcsim::api
