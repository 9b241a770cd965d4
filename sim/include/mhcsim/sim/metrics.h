#pragma once
// What a timeline means per rank: bubble (the step minus the time any compute stream is
// busy), utilisation, exposed communication (communication while no compute runs) and the
// peak number of chunk activations held (forward started, backward not yet finished).
#include <cstdint>
#include <vector>

#include "mhcsim/sim/engine.h"
#include "mhcsim/sim/op_graph.h"

namespace mhcsim::sim {

struct RankStats {
  int32_t rank = 0;
  double compute_busy_seconds = 0;  // union of the compute and high-priority streams
  double comm_busy_seconds = 0;     // union of the all-to-all and PP link streams
  double exposed_comm_seconds = 0;  // communication not under any compute
  double bubble_seconds = 0;        // step - compute_busy
  double bubble_fraction = 0;
  double compute_utilization = 0;
  double comm_utilization = 0;
  int64_t peak_activation_chunks = 0;  // chunk x micro-batch activations alive at once
  double peak_activation_bytes = 0;
};

struct StepStats {
  double step_seconds = 0;
  double max_bubble_seconds = 0;   // the schedule's bubble (DualPipe README: largest idle)
  double mean_bubble_fraction = 0;
  int64_t max_peak_activation_chunks = 0;
  int64_t events = 0;
  int64_t ops = 0;
  std::vector<RankStats> ranks;
};

StepStats summarize(const OpGraph& graph, const Timeline& timeline);

}  // namespace mhcsim::sim
