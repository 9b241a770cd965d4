#pragma once
// Measured against simulated, one row per figure with its error (calculon's llm-validation
// habit: a row per point with the delta %, then the mean and maximum error).
#include <optional>
#include <string>
#include <vector>

#include "mhcsim/traces/timeline_metrics.h"

namespace mhcsim::sim {
struct Simulation;
}

namespace mhcsim::traces {

// The simulated step as kernel spans: one stream per (rank, stream kind), classes from the op
// pieces (attention, dispatch, MLP, combine, mHC post, PP send; an unsplit unit is
// other_compute), so a trace the simulator wrote reads back into the same timeline. Defined
// in target mhcsim_traces_sim, which links the simulator.
KernelTimeline from_simulation(const sim::Simulation& sim);

struct ComparisonRow {
  std::string metric;  // "step time", "busy: attention", "rank 0 compute busy"
  double measured_seconds = 0;
  double simulated_seconds = 0;
  std::optional<double> error_pct;  // (simulated - measured) / measured; none if measured is 0
};

struct Comparison {
  std::vector<ComparisonRow> rows;
  int32_t ranks_compared = 0;
  double mean_abs_error_pct = 0;  // over rows with an error
  double max_abs_error_pct = 0;
};

// Rows: step time, bubble (mean and max over ranks), compute and communication busy time,
// their overlap, exposed communication, the busy time of each op class, and per (rank, stream
// role). Figures that are zero on both sides are left out.
Comparison compare(const TimelineMetrics& measured, const TimelineMetrics& simulated);

}  // namespace mhcsim::traces
