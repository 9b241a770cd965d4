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
//   DualPipe (PP/2-1)(F&B+B-3W); DualPipeV the same with PP = 2 x ranks stages; for the
//   DualPipes plus the reference timeline's own term where F != B_input (pipeline.cpp).
// Never below 0: where weight gradients outweigh the rest (W > (F&B+B)/3, e.g. tens of
// thousands of small experts) the formulas go negative, but deferred W only fills idle time
// that exists; it cannot make a rank finish before its work.
// Throws SpecError for pp < 1, micro_batches < 1, or shapes the schedule cannot run.
double pipeline_bubble_seconds(Schedule s, int64_t pp, int64_t micro_batches, const PhaseTimes& t,
                               int64_t virtual_stages = 1);

// Compute each rank does in one step without overlap: micro_batches x chunks a micro-batch
// visits on the rank x (F + B).
double pipeline_busy_seconds(Schedule s, int64_t pp, int64_t micro_batches, const PhaseTimes& t,
                             int64_t virtual_stages = 1);

// The pipeline stages rank `r` holds, in the schedule's split into pipeline_chunks() stages:
// r (1F1B, ZB1P), r + j PP for j < v (interleaved 1F1B), r and PP-1-r (DualPipe's two copies),
// r and 2PP-1-r (DualPipeV); `f(stage)` is called for each (DualPipe with PP = 2 holds both
// stages twice over: once per direction).
template <class F>
void for_each_stage_of_rank(Schedule s, int64_t pp, int64_t virtual_stages, int64_t r, F&& f) {
  switch (s) {
    case Schedule::Interleaved1F1B:
      for (int64_t j = 0; j < virtual_stages; ++j) f(r + j * pp);
      break;
    case Schedule::DualPipe:
      f(r);
      f(pp - 1 - r);
      break;
    case Schedule::DualPipeV:
      f(r);
      f(2 * pp - 1 - r);
      break;
    case Schedule::OneF1B:
    case Schedule::ZB1P:
      f(r);
      break;
  }
}

// Chunk visits of the busiest rank in one step when the last stage (the remaining layers and
// the LM head) costs `last_fb_seconds` of F + B and every other stage `middle_fb_seconds`. The
// rank holding the last stage runs it once per micro-batch in 1F1B and ZB1P, beside v - 1
// middle chunks in interleaved 1F1B, for half the micro-batches in DualPipe (ranks 0 and PP-1,
// one direction each) and beside stage 0 in DualPipeV (rank 0); other ranks run middle chunks
// only (for_each_stage_of_rank). Busy time = middle x middle_fb + last x last_fb; on a tie the
// rank holding the last stage.
struct RankChunks {
  double middle = 0;
  double last = 0;
};
RankChunks pipeline_busiest_rank(Schedule s, int64_t pp, int64_t micro_batches, double middle_fb_seconds,
                                 double last_fb_seconds, int64_t virtual_stages = 1);

// A rank's compute slots in a schedule that overlaps one micro-batch's forward with another's
// backward: lone forwards and backwards, whose all-to-alls have no partner chunk to hide
// behind, and overlapped F&B pairs.
struct PairedSlots {
  double lone_forward = 0;
  double lone_backward = 0;
  double pairs = 0;
};
// DualPipe or DualPipeV (dualpipe.py / dualpipev.py's eight steps, as
// schedules/src/dual_pipe.cpp replays them), the rank at distance `h` from the nearer end of the
// pipeline (DualPipeV: h = rank):
//   lone F = 3 o + 2 (h + 1) [+1], lone B = 3 o + 2 (h + 1) [+1], pairs = 2C - lone F
// with o = H - h - 1 outer steps, H = PP/2 (DualPipeV: ranks), C = micro-batches / 2 (DualPipeV:
// micro-batches), [+1] on the middle rank, whose first main step does not overlap.
PairedSlots dual_pipe_slots(Schedule s, int64_t pp, int64_t micro_batches, int64_t h);
// Megatron-Core's combined 1F1B (parallel.combined_1f1b) on the last rank, which holds the
// last stage, as the DualPipes' count is their end rank's: lone F = lone B = its warm-up
// forwards (schedules::warmup_forwards), pairs = the micro-batches x chunks per rank left. (The
// earlier ranks' longer warm-ups fall in the fill the last rank waits through.) Throws SpecError
// for a schedule it cannot run.
PairedSlots combined_1f1b_slots(Schedule s, int64_t pp, int64_t micro_batches, int64_t virtual_stages);

// bubble / (bubble + busy).
double pipeline_bubble_fraction(Schedule s, int64_t pp, int64_t micro_batches, const PhaseTimes& t,
                                int64_t virtual_stages = 1);

// Chunks the model's layers are cut into: pp for 1F1B, ZB1P and DualPipe (whose ranks hold two
// *copies*: stages r and PP-1-r of the same PP-stage split, README "2x parameters"), v x pp for
// interleaved 1F1B, 2 x pp for DualPipeV (P ranks, 2P stages). Every micro-batch passes every
// chunk once. Same count as ParallelSpec::stage_count(), with its inputs checked.
int64_t pipeline_chunks(Schedule s, int64_t pp, int64_t virtual_stages = 1);

// Parameters per rank as a multiple of (model parameters / pp): 2 for DualPipe (two copies,
// stages r and PP-1-r), 1 otherwise (DualPipeV's "2x" is against 1F1B at 2 x ranks stages).
double pipeline_parameter_factor(Schedule s);

// Peak activations pipeline rank `rank` keeps, in chunk-activations of one micro-batch. In the
// 1F1B family its warm-up forwards + 1, at most its m x stages-per-rank chunk visits
// (interleaved with m = PP runs every forward first); rank 0, which keeps the most:
//   1F1B and ZB1P min(PP, m), rank r min(PP - r, m); interleaved v PP + PP - 1 (Megatron's
//   1 + (p-1)/(p v) of p stages); combined 1F1B one more (its extra warm-up forward).
// The DualPipes keep as many on every rank: DualPipe PP + 1, DualPipeV 2 PP + 1 (PP + 1 with
// PP = 2 x ranks stages).
int64_t pipeline_activation_chunks(Schedule s, int64_t pp, int64_t micro_batches, int64_t virtual_stages = 1,
                                   bool combined_1f1b = false, int64_t rank = 0);

}  // namespace mhcsim::cost
