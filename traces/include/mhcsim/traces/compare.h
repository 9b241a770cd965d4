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
  std::string id;      // stable key: "step_time", "busy_other_compute", "rank0_all_to_all_stream_busy"
  std::string metric;  // display label: "step time", "busy: attention", "rank 0 compute stream busy"
  double measured_seconds = 0;
  double simulated_seconds = 0;
  std::optional<double> error_pct;  // (simulated - measured) / measured; none if measured is 0
  // Under kMinorShareOfStep of the step on both sides: its error is shown but not ranked
  // (not in the mean and max), since a few microseconds make a large percentage.
  bool minor = false;
};
inline constexpr double kMinorShareOfStep = 0.01;

struct Comparison {
  std::vector<ComparisonRow> rows;
  int32_t ranks_compared = 0;
  double mean_abs_error_pct = 0;  // over the compared rows
  double max_abs_error_pct = 0;
  int32_t compared_rows = 0;  // rows with an error (measured > 0) that are not minor
  int32_t minor_rows = 0;
};

// Rows: step time, bubble (mean and max over ranks), compute and communication busy time,
// their overlap, exposed communication, the busy time of each op class, and per (rank, stream
// role). Figures that are zero on both sides are left out. `window`: the timelines cover part
// of a step (see window_of), and the step and bubble rows are named "window time" and "idle in
// window".
Comparison compare(const TimelineMetrics& measured, const TimelineMetrics& simulated, bool window = false);

// The simulated step's share for a measured trace that covers `fraction` of a step in steady
// state (one chunk pair, one micro-batch): busy times, overlap and exposed communication times
// `fraction`; a window inside the pipeline holds no fill or drain, so its time is (compute busy
// + exposed communication) x fraction and it has no idle time (nothing-runs time, the bubble's
// definition). The measured side is compared as measured (its idle time is not scaled up to a
// step's).
TimelineMetrics window_of(const TimelineMetrics& simulated, double fraction);

}  // namespace mhcsim::traces
