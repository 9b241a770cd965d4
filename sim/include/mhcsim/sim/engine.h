#pragma once
// Discrete-event engine over an OpGraph. Every stream runs its ops in order, one at a time;
// an op starts when it reaches the head of its stream and all its predecessors are done. The
// event queue is a std::priority_queue of (time, kind, seq): seq numbers events in push order,
// so same-time events always pop in the same order and a run is reproducible bit for bit
// (vidur orders its events the same way).
#include <cstdint>
#include <vector>

#include "mhcsim/sim/op_graph.h"

namespace mhcsim::sim {

struct Timeline {
  std::vector<double> start_seconds;  // per op
  std::vector<double> end_seconds;
  double makespan_seconds = 0;
  int64_t events = 0;                 // events popped from the queue
};

// Throws std::logic_error if some op never runs (a schedule that deadlocks).
Timeline run(const OpGraph& graph);

}  // namespace mhcsim::sim
