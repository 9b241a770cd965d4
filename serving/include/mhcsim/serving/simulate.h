#pragma once
// The request-level serving simulator (vidur-style): requests arrive from a source, a router
// sends them to replicas, each replica's scheduler forms one batch per iteration (continuous
// batching, token budget, chunked prefill, paged KV with recompute preemption), and the
// iteration takes what cost::ServingStepModel says for that batch. With a prefill pool the
// prompt's KV moves to a decode replica over the network after prefill.
#include <cstdint>

#include "mhcsim/cost/serving_step.h"
#include "mhcsim/serving/config.h"
#include "mhcsim/serving/request.h"
#include "mhcsim/serving/result.h"
#include "mhcsim/specs.h"

namespace mhcsim::serving {

// One pool's scenario and its step model, built once and reused by every run (--max-rate
// runs the simulator many times).
class Deployment {
 public:
  explicit Deployment(const Scenario& s);
  const Scenario& scenario() const { return scenario_; }
  const cost::ServingStepModel& model() const { return model_; }
  // Seconds to send `tokens` tokens of KV cache from one replica of this pool to another: the
  // replica's GPUs each send their share over their NIC (alpha-beta, cost::nic_rate).
  double kv_transfer_seconds(double tokens) const;

 private:
  Scenario scenario_;
  cost::ServingStepModel model_;
  double nic_alpha_s_ = 0, nic_bytes_per_s_ = 0;
};

// The verb a ServingConfig::trace's written_by names, which --force checks before replacing one.
inline constexpr const char* kTraceWrittenBy = "serve";

// Runs until every request of `requests` has finished. `prefill_pool` is used when
// config.prefill_replicas > 0 (default: `deployment` for both pools). Throws InputError when a
// request cannot fit one replica's KV cache (naming the request file's line, or the scenario).
ServingResult simulate(const Deployment& deployment, const ServingConfig& config, RequestSource& requests,
                       const Deployment* prefill_pool = nullptr);

}  // namespace mhcsim::serving
