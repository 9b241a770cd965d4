#pragma once
// The price list that sim/ uses for its ops: the time of one pipeline chunk (one stage's
// layers for one micro-batch) split into the pieces DeepSeek-V3 overlaps (report 3.2:
// attention, dispatch all-to-all, MLP, combine all-to-all; backward split into input- and
// weight-gradient parts). Derived from the model's FLOPs and bytes on the scenario's hardware
// (or its calibration profile).
#include <array>
#include <cstdint>

#include "mhcsim/cost/layer_ops.h"
#include "mhcsim/specs.h"

namespace mhcsim::cost {

struct ChunkCost {
  int64_t layers = 0;                       // transformer layers in this chunk
  double attn_forward_seconds = 0;          // attention (incl. norms, mHC coefficient math)
  double mlp_forward_seconds = 0;           // FFN or experts (incl. shared expert)
  double dispatch_seconds = 0;              // EP all-to-all dispatch, forward (0 without EP)
  double combine_seconds = 0;               // EP all-to-all combine, forward
  double attn_backward_input_seconds = 0;   // dgrad
  double attn_backward_weight_seconds = 0;  // wgrad
  double mlp_backward_input_seconds = 0;
  double mlp_backward_weight_seconds = 0;
  double mhc_forward_seconds = 0;  // mHC kernels in this chunk (already inside attn/mlp)
  double recompute_seconds = 0;    // activation recompute (already inside backward input)
  double tp_comm_seconds = 0;      // TP all-reduces, fwd + bwd (already inside attn/mlp)
  double pp_send_bytes = 0;        // activation sent to the next stage (n x hidden for mHC)
  double pp_send_seconds = 0;
  double activation_bytes = 0;  // activations kept per micro-batch until backward
  bool has_head = false;        // the last stage: final norm, LM head, cross-entropy
  // Forward + backward + recompute seconds of the chunk's ops by kind (gemm, attention,
  // memory-bound, communication = TP/CP collectives); the EP all-to-all is dispatch/combine.
  std::array<double, kOpKinds> kind_seconds{};

  // Compute-only phase times as the pipeline formulas use them (DualPipe README notation).
  double forward_seconds() const { return attn_forward_seconds + mlp_forward_seconds; }
  double backward_weight_seconds() const { return attn_backward_weight_seconds + mlp_backward_weight_seconds; }
  double backward_seconds() const {  // full B = input + weight gradients
    return attn_backward_input_seconds + mlp_backward_input_seconds + backward_weight_seconds();
  }
  // Backward of the EP all-to-all mirrors the forward: combine-grad is a dispatch and vice versa.
  double a2a_forward_seconds() const { return dispatch_seconds + combine_seconds; }
};

// One TP all-reduce of `tokens` x hidden activations over the scenario's TP group (NVLink
// within a node); 0 without TP.
double tp_all_reduce_seconds(const Scenario& scenario, double tokens);

// Activations `tokens` tokens send to the next pipeline stage (n x hidden streams with mHC),
// and the time of a send of `bytes` between stages (0 without PP).
double stage_send_bytes(const Scenario& scenario, double tokens);
double stage_send_seconds(const Scenario& scenario, double bytes);

// One chunk of `layers_per_chunk` layers for one micro-batch of the scenario's workload, priced
// op by op (layer_ops.h). A chunk holds as many MoE layers as the model has, up to its size
// (the most loaded stage); `last_stage` adds the LM head. Throws SpecError on impossible specs.
ChunkCost chunk_cost(const Scenario& scenario, int64_t layers_per_chunk, bool last_stage = false);

// Activations one micro-batch keeps for a chunk of `layers` layers until its backward: the
// saved tensors of every op under the recompute scheme (the layer input alone with full
// recompute), plus the mHC streams ((n+2)C per mHC layer, or Eq. 20's block recompute); the
// last stage's chunk (`last_stage`, whose layers may be 0) adds its head's and MTP modules'.
// ChunkCost::activation_bytes of the same chunk.
double chunk_activation_bytes(const Scenario& scenario, int64_t layers, bool last_stage = false);

}  // namespace mhcsim::cost
