#pragma once
// What a step's timeline says, computed the same way for a measured trace and a simulation so
// the two can be compared: per rank, the busy time (union of spans) of each op class, of all
// compute and of all communication, their overlap, and the bubble (the step minus the time
// anything runs, compute or communication: sim/step_terms.h's definition, which `step` and
// `simulate` report); per (rank, stream role), the busy time. Rank figures are means over the
// ranks measured.
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include "mhcsim/traces/kernel_timeline.h"

namespace mhcsim::traces {

// A stream's role follows the class holding most of its busy time.
enum class StreamRole : uint8_t { Compute, HighPriority, AllToAll, PpP2p, OtherComm };
std::string_view to_string(StreamRole r);

struct RoleBusy {
  int32_t rank = 0;  // counted from the first rank measured
  StreamRole role = StreamRole::Compute;
  double busy_seconds = 0;  // union over the rank's streams of this role
};

struct TimelineMetrics {
  int32_t ranks = 0;
  double step_seconds = 0;  // span of the whole timeline (all ranks) / steps
  std::array<double, kOpClasses> class_busy_seconds{};
  double compute_busy_seconds = 0;
  double comm_busy_seconds = 0;
  double overlap_seconds = 0;       // compute and communication at the same time
  double exposed_comm_seconds = 0;  // communication while no compute runs
  double mean_bubble_seconds = 0;
  double max_bubble_seconds = 0;
  std::vector<RoleBusy> streams;  // sorted by rank, then role
};

// Ranks [first_rank, first_rank + rank_count) of `t`; the step spans those ranks' spans and is
// divided by `steps` (a trace may hold several); busy times are divided likewise.
TimelineMetrics measure(const KernelTimeline& t, int32_t first_rank, int32_t rank_count, double steps = 1);

}  // namespace mhcsim::traces
