#pragma once
// Discrete-event engine over an OpGraph. Every stream runs its ops in order, one at a time;
// an op starts when it reaches the head of its stream and all its predecessors are done. The
// event queue is a binary heap of (time, kind, seq): seq numbers events in push order, so
// same-time events always pop in the same order and a run is reproducible bit for bit (vidur
// orders its events the same way). Each op's start is max(end of the op before it on its
// stream, ends of its predecessors), whatever order same-time events pop in.
#include <cstdint>
#include <vector>

#include "mhcsim/sim/op_graph.h"

namespace mhcsim::sim {

struct Timeline {
  std::vector<double> start_seconds;  // per op
  std::vector<double> end_seconds;
  double makespan_seconds = 0;
  int64_t events = 0;  // op completions handled: one per op, zero-length ops included (those
                       // are finished without passing through the heap)
};

// Throws std::logic_error if some op never runs (a schedule that deadlocks) and
// std::invalid_argument if a duration is negative or not finite.
Timeline run(const OpGraph& graph);

}  // namespace mhcsim::sim
