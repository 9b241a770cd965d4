#pragma once
// What a timeline means per rank, in the terms of step_terms.h: compute, exposed
// communication, gradient sync and bubble (which add up to the step on every rank),
// utilisation, and the peak chunk activations held (forward started, backward not finished).
#include <cstdint>
#include <vector>

#include "mhcsim/sim/engine.h"
#include "mhcsim/sim/op_graph.h"
#include "mhcsim/sim/step_terms.h"

namespace mhcsim::sim {

struct RankStats {
  int32_t rank = 0;
  double compute_busy_seconds = 0;  // union of the compute ops (any stream)
  double comm_busy_seconds = 0;     // union of the all-to-all and PP transfer ops, hidden or not
  double exposed_comm_seconds = 0;  // communication with no compute running
  double grad_sync_seconds = 0;     // exposed DP gradient sync
  double bubble_seconds = 0;        // nothing running: step - the three above
  double bubble_fraction = 0;
  double compute_utilization = 0;
  double comm_utilization = 0;
  int64_t peak_activation_chunks = 0;  // chunk x micro-batch activations alive at once
  double peak_activation_bytes = 0;

  StepTerms terms() const { return {compute_busy_seconds, exposed_comm_seconds, grad_sync_seconds, bubble_seconds}; }
};

struct StepStats {
  double step_seconds = 0;
  int32_t pacing_rank = 0;    // the rank with the least bubble (step_terms.h)
  double bubble_seconds = 0;  // the pipeline's bubble: the pacing rank's
  // The largest time a rank runs no compute (its bubble + exposed communication + gradient
  // sync); not the step_terms.h bubble, which `compare` measures as its bubble rows.
  double max_bubble_seconds = 0;
  double mean_bubble_fraction = 0;
  int64_t max_peak_activation_chunks = 0;
  double max_peak_activation_bytes = 0;
  int64_t events = 0;
  int64_t ops = 0;
  std::vector<RankStats> ranks;

  StepTerms terms() const { return ranks.empty() ? StepTerms{} : ranks[static_cast<size_t>(pacing_rank)].terms(); }
};

StepStats summarize(const OpGraph& graph, const Timeline& timeline);

}  // namespace mhcsim::sim
