#pragma once
// The global scheduler: which replica of a pool gets a request. Round-robin, or the replica
// with the fewest prompt tokens still to prefill, then the fewest requests (queued + running),
// ties broken round-robin.
#include <cstdint>
#include <vector>

#include "mhcsim/serving/config.h"
#include "replica.h"

namespace mhcsim::serving::detail {

class Router {
 public:
  explicit Router(RouterKind kind) : kind_(kind) {}
  // Index into `pool` (its replicas [first, first + count) of the engine's list).
  int64_t pick(const std::vector<Replica>& replicas, int64_t first, int64_t count);

 private:
  RouterKind kind_;
  int64_t cursor_ = 0;
};

}  // namespace mhcsim::serving::detail
