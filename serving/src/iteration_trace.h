#pragma once
// Chrome trace of the iterations (Perfetto / chrome://tracing): one pid per traced replica, one
// complete event per iteration with its batch shape, and counter tracks of the KV blocks in use
// and of the batch (decode sequences, prefill tokens) over time. Written as the run goes, so a
// trace costs no memory; the first `max_replicas` replicas of each pool are traced.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "mhcsim/cost/serving_step.h"

namespace mhcsim::serving::detail {

class IterationTrace {
 public:
  IterationTrace(std::ostream* out, int64_t max_replicas);
  ~IterationTrace();
  // Names replica `index`'s process ("prefill 3", "decode 0", "replica 5").
  void name(int64_t index, const std::string& label, int64_t local_index);
  void iteration(int64_t index, int64_t local_index, double start_s, double seconds, const cost::BatchShape& b,
                 int64_t used_blocks);

 private:
  void separator();
  std::ostream* out_;
  int64_t max_replicas_;
  bool first_ = true;
};

}  // namespace mhcsim::serving::detail
