#pragma once
// Runs a sweep over a thread pool. Each point is built from the parsed template (never from
// the text) and evaluated; results land at the point's index, so the output is the same for
// any thread count.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mhcsim/reports/table.h"
#include "mhcsim/scenarios/template.h"
#include "mhcsim/sweep/evaluator.h"
#include "mhcsim/sweep/grid.h"

namespace mhcsim::sweep {

struct SweepOptions {
  int threads = 0;  // 0: std::thread::hardware_concurrency()
  // Called from the calling thread about every 100 ms while the sweep runs, and once at the end.
  std::function<void(int64_t done, int64_t total)> progress;
};

struct SweepResult {
  std::vector<SweepAxis> axes;
  std::vector<Metric> metrics;
  int64_t points = 0;
  std::vector<int32_t> value_index;  // [point][axis]
  std::vector<double> values;        // [point][metric]
  std::vector<std::string> reasons;  // [point]; empty: feasible

  bool feasible(int64_t p) const { return reasons[static_cast<size_t>(p)].empty(); }
  double value(int64_t p, size_t metric) const {
    return values[static_cast<size_t>(p) * metrics.size() + metric];
  }
  int64_t feasible_count() const;
};

// Rethrows the first non-input error an evaluation raised (after all threads stop).
SweepResult run_sweep(scenarios::ScenarioTemplate& scenario, const Grid& grid,
                      const Evaluator& evaluator, const SweepOptions& options = {});

// Index of the metric `by` names: its key ("step_time_s") or the key without its unit suffix
// ("step_time"). Throws InputError("--by", "... (expected one of ...)").
size_t metric_index(const SweepResult& r, const std::string& by);
// The best `k` feasible points by that metric (ties keep point order).
std::vector<int64_t> top_points(const SweepResult& r, const std::string& by, int64_t k);

// Rows [begin, end) of `points` (or of all points when `points` is empty) as a Table: one
// column per axis, then `feasible`, the metrics, and `reason`.
reports::Table to_table(const SweepResult& r, const std::vector<int64_t>& points, int64_t begin,
                        int64_t end, const std::string& title);

}  // namespace mhcsim::sweep
