#pragma once
// Chrome trace of the iterations (Perfetto / chrome://tracing): one pid per traced replica, one
// complete event per iteration with its batch shape, and counter tracks of the KV blocks in use
// and of the batch (decode sequences, prefill tokens) over time. Written as the run goes, so a
// trace costs no memory; the first `max_replicas` replicas of each pool are traced, until the
// next event would pass `max_bytes`: then one instant event marks where it stopped.
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "mhcsim/cost/serving_step.h"

namespace mhcsim::serving::detail {

class IterationTrace {
 public:
  IterationTrace(std::ostream* out, int64_t max_replicas, int64_t max_bytes);
  ~IterationTrace();
  // Names replica `index`'s process ("prefill 3", "decode 0", "replica 5").
  void name(int64_t index, const std::string& label, int64_t local_index);
  void iteration(int64_t index, int64_t local_index, double start_s, double seconds, const cost::BatchShape& b,
                 int64_t used_blocks);
  // Simulated time at which the size limit stopped the trace; none while it runs whole.
  std::optional<double> stopped_at_s() const { return stopped_at_s_; }

 private:
  void write(const std::string& event);  // separator and event, counted against the limit
  std::ostream* out_;
  int64_t max_replicas_, max_bytes_, bytes_ = 0;
  bool first_ = true;
  std::optional<double> stopped_at_s_;
};

}  // namespace mhcsim::serving::detail
