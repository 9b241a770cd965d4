#pragma once
// A schedule's timeline at the granularity of its slots: each rank runs its slots in program
// order, a slot starts when the rank is free and its inputs have arrived (the previous hop's
// forward output, the next hop's backward output, the unit's own forward before its backward),
// and lasts what the caller priced it at. This is the bubble of `step` for the DualPipes, whose
// README formula holds for identical stages only (sim/README.md: with a heavier last stage the
// waits of the end ranks are differences of paths through the schedule, with no closed form).
// The simulator (sim/) runs the same programs op by op; where communication is free the two
// timelines are the same (tests/schedules/test_slot_timeline.cpp).
#include <array>
#include <cstdint>
#include <vector>

#include "mhcsim/schedules/schedule.h"

namespace mhcsim::schedules {

// What one slot takes on its rank's compute stream, communication it cannot hide included (the
// caller prices that).
struct SlotPrices {
  double forward_seconds = 0;         // a lone F
  double backward_seconds = 0;        // a lone full B (input and weight gradients)
  double backward_input_seconds = 0;  // a lone B whose weight gradient is deferred to a W slot
  double weight_seconds = 0;          // W
};

// Every stage but the last at `middle`, the last stage (the remaining layers and the LM head)
// at `last`; an F&B slot (the forward of one unit beside the full backward of another) at
// forward_backward_seconds[forward's stage is the last][backward's stage is the last].
struct StageSlotPrices {
  SlotPrices middle;
  SlotPrices last;
  std::array<std::array<double, 2>, 2> forward_backward_seconds{};
};

struct SlotTimeline {
  double makespan_seconds = 0;
  std::vector<double> busy_seconds;  // per rank: the sum of its slots
  // Per rank: waiting for inputs, the rest of the makespan.
  double idle_seconds(int32_t rank) const { return makespan_seconds - busy_seconds[static_cast<size_t>(rank)]; }
};

// Outputs are ready when their slot ends. Without explicit communication they are at the next
// hop's rank then; with it (the DualPipes) they travel as the reference sends them: posted
// sends and receives are launched together at the rank's next commit, a transfer is done once
// its output is ready and both ends have launched it, and the commit holds the rank until all
// it launched is done (the simulator's op graph, sim/src/op_graph.cpp). Transfers take no time
// here: `step` prices the waited stage sends on their own. Throws std::invalid_argument for a
// negative or non-finite price and std::logic_error for a program that deadlocks.
SlotTimeline slot_timeline(const Program& program, const StageSlotPrices& prices);

// The least idle time of any rank of the schedule `spec` (the simulator's pacing rank),
// DualPipe or DualPipeV only (std::invalid_argument otherwise). Past 2 x ranks micro-batches
// each further main-step iteration (2 micro-batches in DualPipe, 1 in DualPipeV) gives every
// rank two more F&B slots and every clock the longest such pair, so the timeline runs
// 2 x ranks micro-batches and extends each rank's idle time from there, exactly
// (tests/schedules/test_slot_timeline.cpp checks it against whole runs). Each thread keeps the
// last few programs it generated, with the order their steps can run in (which depends on the
// program, not the prices), so a kept one is replayed in one pass: a sweep prices thousands of
// points of one pipeline shape. Its cost grows with ranks squared: measured (one core of the
// 2-core CI machine, DualPipe; DualPipeV about twice) at 16 / 64 ranks, 8 / 145 us for a kept
// shape (sim/bench, BM_LeastIdleKeptShape), and about 0.1 / 1 ms for a new one; more than
// kMaxLeastIdleRanks is refused (std::invalid_argument).
inline constexpr int32_t kMaxLeastIdleRanks = 64;
double dual_pipe_least_idle_seconds(const ScheduleSpec& spec, const StageSlotPrices& prices);

}  // namespace mhcsim::schedules
