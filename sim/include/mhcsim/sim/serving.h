#pragma once
// `simulate` on a serving scenario: an iteration's forward passes only, the batch split into
// micro-batches as the serving iteration model splits it (cost/serving_step.h: two overlapped
// ones with EP and parallel.overlap, DeepSeek's two-micro-batch overlap; pp of them through a
// pipeline; else one), each priced by that model at its share of the batch. So `simulate` and
// `step` price the same work, and the simulator shows what the formula assumes: how much of the
// all-to-all the other micro-batch hides, and the pipeline's steady state.
#include <cstdint>
#include <string>

#include "mhcsim/sim/simulate.h"
#include "mhcsim/specs.h"

namespace mhcsim::sim {

// A pipeline reaches its steady state after its first iteration; the last of these runs in it
// (each micro-batch's next iteration waits for its previous one, so the pp micro-batches cycle
// through the stages). One stage has no fill: one iteration is every iteration.
inline constexpr int32_t kPipelinedIterations = 4;

struct ServingPlan {
  int32_t ranks = 1;          // pipeline stages (parallel.pp)
  int32_t micro_batches = 1;  // per iteration
  int32_t iterations = 1;
  bool paired = false;        // two micro-batches overlapped on the same GPUs
  int32_t paired_rounds = 1;  // the pair interleaves once per MoE layer (prices.h)
};
ServingPlan serving_plan(const Scenario& s);
// Ops simulate_serving creates, about (an upper bound), and the sentence errors give for them.
int64_t estimated_ops(const ServingPlan& plan);
std::string describe_ops(const ServingPlan& plan);

// Per micro-batch: attention = the attention core and the attention sublayers' projections,
// norms and TP collectives; MLP = the rest of the layers' compute (FFN or experts, router,
// permute); dispatch and combine as priced (low-latency kernels for decode); the LM head on
// the last stage's MLP piece. No backward, no gradient sync, no activations kept.
StagePrices serving_stage_prices(const Scenario& s);
Simulation simulate_serving(const Scenario& s);

// `step`'s iteration (cost::serve_estimate) in the terms of step_terms.h: compute, exposed
// all-to-all and stage sends; no bubble (every stage busy in the steady state).
StepTerms analytic_serving_terms(const Scenario& s);

}  // namespace mhcsim::sim
