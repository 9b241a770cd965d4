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
#include "mhcsim/sweep/mpi.h"

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
  double value(int64_t p, size_t metric) const { return values[static_cast<size_t>(p) * metrics.size() + metric]; }
  int64_t feasible_count() const;
};

// Evaluates the sweep on `threads` worker threads and hands the results to `sink` on the calling
// thread, a block of consecutive points at a time, in point order: the block is a SweepResult
// of its own points (point p of the sweep is row p - first_point), valid during the call.
// Workers run at most `window_blocks` blocks ahead of the sink (a bounded queue), so memory
// does not grow with the number of points, and whatever the sink does (formatting, writing)
// stays off the evaluation threads. A sink that throws stops the workers; the error leaves
// after they have stopped, as does the first non-input error an evaluation raised.
// Under mpirun (`ranks` from mpi_ranks()), block b is evaluated by rank b % size, and every rank
// sends its blocks to rank 0, whose sink alone is called, with every block in point order, as
// in one process; the sink of the other ranks is never called.
struct StreamOptions {
  int64_t block_points = 1024;
  int64_t window_blocks = 0;  // 0: 4 per thread
  Ranks ranks;
};
using BlockSink = std::function<void(const SweepResult& block, int64_t first_point)>;
void stream_sweep(scenarios::ScenarioTemplate& scenario, const Grid& grid, const Evaluator& evaluator,
                  const SweepOptions& options, const BlockSink& sink, const StreamOptions& stream = {});

// The whole result in memory (stream_sweep into one SweepResult).
// Rethrows the first non-input error an evaluation raised (after all threads stop).
SweepResult run_sweep(scenarios::ScenarioTemplate& scenario, const Grid& grid, const Evaluator& evaluator,
                      const SweepOptions& options = {});

// Index of the metric `by` names: its key ("step_time_s") or the key without its unit suffix
// ("step_time"). Throws InputError("--by", "... (expected one of ...)").
size_t metric_index(const std::vector<Metric>& metrics, const std::string& by);
inline size_t metric_index(const SweepResult& r, const std::string& by) { return metric_index(r.metrics, by); }
// The best `k` feasible points by that metric (ties keep point order).
std::vector<int64_t> top_points(const SweepResult& r, const std::string& by, int64_t k);

// The best `k` feasible points of a streamed sweep, kept as its blocks arrive (memory for k
// rows, not for the sweep): the same points, in the same order, as top_points on the whole.
class TopPoints {
 public:
  TopPoints(std::string by, int64_t k) : by_(std::move(by)), k_(k) {}
  void add(const SweepResult& block, int64_t first_point);
  // The kept rows (in point order) and their order by the metric, best first.
  const SweepResult& kept() const { return kept_; }
  std::vector<int64_t> order() const { return kept_.points ? top_points(kept_, by_, k_) : std::vector<int64_t>{}; }
  int64_t feasible_points() const { return feasible_; }

 private:
  std::string by_;
  int64_t k_;
  SweepResult kept_;
  int64_t feasible_ = 0;
};

// Rows [begin, end) of `points` (or of all points when `points` is empty) as a Table: one
// column per axis, then `feasible`, the metrics, and `reason`.
reports::Table to_table(const SweepResult& r, const std::vector<int64_t>& points, int64_t begin, int64_t end,
                        const std::string& title);

}  // namespace mhcsim::sweep
