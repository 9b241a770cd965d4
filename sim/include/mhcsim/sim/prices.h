#pragma once
// The price list of one pipeline chunk (one stage's layers for one micro-batch), split into the
// pieces DeepSeek-V3 overlaps (report 3.2): attention, dispatch all-to-all, MLP, combine
// all-to-all; backward split into input- and weight-gradient parts. The simulator never
// prices anything itself: tests pass uniform F/B/W, the CLI converts cost::ChunkCost.
#include <cstdint>

#include "mhcsim/cost/chunk_cost.h"

namespace mhcsim::sim {

struct PhasePrices {
  double attn_forward_seconds = 0;
  double mlp_forward_seconds = 0;
  double mhc_post_forward_seconds = 0;  // mHC F_post,res of the MLP sublayers, run on the
                                        // high-priority compute stream (mHC paper 4.3.3);
                                        // not included in mlp_forward_seconds
  double dispatch_seconds = 0;          // EP all-to-all; the backward mirrors it
  double combine_seconds = 0;
  // Share of each all-to-all that can run beside compute (parallel.overlap, as the analytic
  // model reads it); the rest is serialised on the compute stream, which waits for it.
  double a2a_overlap = 1;
  double attn_backward_input_seconds = 0;
  double attn_backward_weight_seconds = 0;
  double mlp_backward_input_seconds = 0;
  double mlp_backward_weight_seconds = 0;
  double pp_send_seconds = 0;  // stage-boundary transfer over one link
  double pp_send_bytes = 0;
  double activation_bytes = 0;  // kept per chunk and micro-batch until its backward
  // A ForwardForward slot (serving's two micro-batches) interleaves its two forwards this many
  // times, each round a 1/paired_rounds share of every piece: once per MoE layer, as DeepSeek's
  // inference overlaps them layer by layer (open-infra day 6), so that one micro-batch's
  // all-to-all runs beside the other's compute of the same layer.
  int32_t paired_rounds = 1;

  bool has_a2a() const { return dispatch_seconds > 0 || combine_seconds > 0; }
  double forward_seconds() const { return attn_forward_seconds + mlp_forward_seconds + mhc_post_forward_seconds; }
  double backward_weight_seconds() const { return attn_backward_weight_seconds + mlp_backward_weight_seconds; }
  double backward_input_seconds() const { return attn_backward_input_seconds + mlp_backward_input_seconds; }
};

// What every stage of the pipeline costs. A micro-batch's hop h runs stage h in every
// schedule (layout.h: hop h of a DualPipe path or of DualPipeV's V is stage h of that
// direction), so the last hop is the last stage: it holds what is left of the layers and the
// LM head (cost::StepEstimate::last_chunk), every other stage the middle chunk.
struct StagePrices {
  PhasePrices chunk;       // every stage but the last
  PhasePrices last_chunk;  // the last stage
  // Exposed DP gradient sync (reduce-scatter + all-gather beyond what parallel.overlap hides)
  // each rank runs after its last op: cost::StepEstimate::dp_sync_seconds.
  double grad_sync_seconds = 0;

  const PhasePrices& of_stage(int32_t stage, int32_t stages) const { return stage == stages - 1 ? last_chunk : chunk; }
};

// One price for every stage, no gradient sync (the idealised pipeline of the formulas).
StagePrices uniform_stages(const PhasePrices& chunk);

// Free communication, one compute piece per phase: F, input-gradient B and W (full B = B + W).
PhasePrices uniform_prices(double forward_seconds, double backward_input_seconds, double backward_weight_seconds);

// From the cost model, with `a2a_overlap` = parallel.overlap. Half of the chunk's mHC kernel
// time is taken as the MLP sublayers' share and moved to the high-priority stream (the paper
// runs F_post,res of MLP layers there).
PhasePrices prices_from_chunk_cost(const cost::ChunkCost& c, double a2a_overlap = 1.0);

}  // namespace mhcsim::sim
