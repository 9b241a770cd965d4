#pragma once
// Roofline composition of one training step (compute vs HBM vs communication, with the
// scenario's overlap factor) -> step time, tokens/s, MFU and GPU-hours per trillion tokens.
#include <cstdint>

#include "mhcsim/cost/chunk_cost.h"
#include "mhcsim/cost/pipeline.h"
#include "mhcsim/specs.h"

namespace mhcsim::cost {

struct StepEstimate {
  int64_t layers_per_chunk = 0;
  // Layers the stages' chunks hold together as priced: every chunk but the last at
  // layers_per_chunk, the last at what is left (possibly none). Past the model's layers where
  // the stages before the last cannot all be full (DeepSeek-V3's 61 over 32 chunks of 2: 62);
  // the excess is priced on those stages.
  int64_t layers_priced = 0;
  ChunkCost chunk;                          // the slowest chunk (F + B), which paces the pipeline
  ChunkCost middle_chunk;                   // a chunk of layers_per_chunk layers
  ChunkCost last_chunk;                     // the last stage's layers and the LM head
  PhaseTimes phases;                        // per chunk before the last stage (the fill and drain),
                                            // with the exposed all-to-all folded in
  double exposed_a2a_seconds = 0;           // per visit of the slowest chunk, forward + backward
  RankChunks busiest_rank;                  // its chunk visits per step: middle and last-stage chunks
  double busy_seconds = 0;                  // the busiest rank's F + B over its chunks, exposure included
  double exposed_a2a_per_rank_seconds = 0;  // of busy_seconds, the exposed all-to-all
  double pp_exposed_seconds = 0;            // DualPipe: the busiest rank waiting for its stage sends
  double bubble_seconds = 0;                // DualPipes: the pacing rank's idle on the slot-level
                                            // timeline (schedules/slot_timeline.h); otherwise
                                            // pipeline_bubble_seconds over the phases of the chunks
                                            // before the last stage + the fill and drain sends
  double dp_sync_seconds = 0;               // exposed gradient reduce-scatter / parameter all-gather
  double step_seconds = 0;
  double tokens_per_step = 0;
  double tokens_per_second = 0;
  double training_flops_per_token = 0;  // non-causal attention (ISCA 2025's MFU basis)
  double training_flops_per_token_causal = 0;
  double mfu = 0;  // non-causal model FLOPs / (GPUs x BF16 peak)
  double mfu_causal = 0;
  double gpu_hours_per_trillion_tokens = 0;
  double gpu_hours_for_budget = 0;  // workload.token_budget (0 when none)
  double bubble_fraction() const { return step_seconds > 0 ? bubble_seconds / step_seconds : 0; }
};

// Train-mode scenarios only (SpecError otherwise).
StepEstimate step_estimate(const Scenario& s);

}  // namespace mhcsim::cost
