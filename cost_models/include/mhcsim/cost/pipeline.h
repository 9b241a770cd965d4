#pragma once
// Pipeline-parallel bubble and per-rank memory factors (deepseek-ai/DualPipe README table;
// Megatron interleaved 1F1B, Narayanan et al. 2021; Zero Bubble ZB-H1, Qi et al. 2023).
// `pp` is always the number of pipeline *ranks* (ParallelSpec::pp). Phase times are per
// chunk, the unit a schedule moves between ranks: a whole stage for 1F1B and ZB1P, 1/v of a
// stage for interleaved 1F1B, one of the two chunks a rank holds for DualPipe and DualPipeV.
#include <cstdint>

#include "mhcsim/specs.h"

namespace mhcsim::cost {

struct PhaseTimes {
  double f = 0;   // forward of one chunk
  double b = 0;   // full backward of one chunk (input + weight gradients)
  double w = 0;   // weight-gradient part of b
  double fb = 0;  // two mutually overlapped chunks, one forward and one backward (F&B)
};

// Largest idle time over ranks in one step (README table):
//   1F1B (PP-1)(F+B); ZB1P (PP-1)(F+B-2W); interleaved (PP-1)(F+B) per chunk;
//   DualPipe (PP/2-1)(F&B+B-3W); DualPipeV the same with PP = 2 x ranks stages.
// Throws SpecError for pp < 1, micro_batches < 1, or shapes the schedule cannot run.
double pipeline_bubble_seconds(Schedule s, int64_t pp, int64_t micro_batches,
                               const PhaseTimes& t, int64_t virtual_stages = 1);

// Compute each rank does in one step without overlap: micro_batches x chunks a micro-batch
// visits on the rank x (F + B).
double pipeline_busy_seconds(Schedule s, int64_t pp, int64_t micro_batches,
                             const PhaseTimes& t, int64_t virtual_stages = 1);

// bubble / (bubble + busy).
double pipeline_bubble_fraction(Schedule s, int64_t pp, int64_t micro_batches,
                                const PhaseTimes& t, int64_t virtual_stages = 1);

// Chunks the model's layers are cut into: pp for 1F1B, ZB1P and DualPipe (whose ranks hold two
// *copies*: stages r and PP-1-r of the same PP-stage split, README "2x parameters"), v x pp for
// interleaved 1F1B, 2 x pp for DualPipeV (P ranks, 2P stages). Every micro-batch passes every
// chunk once. Same count as ParallelSpec::stage_count(), with its inputs checked.
int64_t pipeline_chunks(Schedule s, int64_t pp, int64_t virtual_stages = 1);

// Parameters per rank as a multiple of (model parameters / pp): 2 for DualPipe (two copies,
// stages r and PP-1-r), 1 otherwise (DualPipeV's "2x" is against 1F1B at 2 x ranks stages).
double pipeline_parameter_factor(Schedule s);

// Peak activations a rank keeps, in chunk-activations of one micro-batch:
//   1F1B and ZB1P min(PP, m); interleaved v PP + PP - 1 (Megatron's 1 + (p-1)/(p v) of p
//   stages); DualPipe PP + 1; DualPipeV 2 PP + 1 (PP + 1 with PP = 2 x ranks stages).
int64_t pipeline_activation_chunks(Schedule s, int64_t pp, int64_t micro_batches,
                                   int64_t virtual_stages = 1);

}  // namespace mhcsim::cost
