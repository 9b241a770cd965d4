#pragma once
// `stability`: what mHC buys. The composite residual gain of unconstrained HC against mHC's
// Sinkhorn projection at each t_max in fp32 and bf16, over the scenario's depth (2 mappings per
// layer) and expansion rate n, for a random model of learned mappings or a mappings file dumped
// from a checkpoint (stability/).
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mhcsim/api/argument_names.h"
#include "mhcsim/reports/table.h"
#include "mhcsim/specs.h"
#include "mhcsim/stability/study.h"

namespace mhcsim::api {

inline constexpr double kMaxStabilityNoise = 10;
inline constexpr int64_t kMaxStabilitySamples = 1'000'000;

struct StabilityRequest {
  ArgumentNames names = ArgumentNames::Flags;
  int64_t n = 0;                        // 0: the scenario's model.mhc.n, or 4 for a plain residual
  int64_t layers = 0;                   // 0: the scenario's model.layers
  std::vector<int64_t> sinkhorn_iters;  // empty: 1,3,5,10,20 and the scenario's t_max
  double noise = stability::kPaperHcNoise;
  int64_t samples = 1000;
  int64_t seed = 1;
  std::string mappings;  // L x n x n raw matrices (JSON or .npy) instead of the random model
};

struct StabilityAnswer {
  std::vector<stability::VariantGain> results;  // HC, then mHC fp32 and bf16 at each t_max
  int64_t n = 0, depth_mappings = 0, samples = 1;
  int scenario_sinkhorn_iters = 0;
  reports::Table gains{"", {}};  // one row per variant
  reports::Table depth{"", {}};  // median gain against depth: HC, mHC fp32 and bf16 at the scenario's t_max
};

// Checks the request (InputError naming each argument as request.names says) and runs the study.
StabilityAnswer stability(const Scenario& s, const StabilityRequest& request);

// The document's inputs and results (each variant's row with its curves over depth).
nlohmann::json stability_inputs(const StabilityRequest& request, const StabilityAnswer& answer);
nlohmann::json to_json(const StabilityRequest& request, const StabilityAnswer& answer);

}  // namespace mhcsim::api
