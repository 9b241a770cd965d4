#include "router.h"

namespace mhcsim::serving::detail {

int64_t Router::pick(const std::vector<Replica>& replicas, int64_t first, int64_t count) {
  const int64_t start = cursor_;
  cursor_ = (cursor_ + 1) % count;
  if (kind_ == RouterKind::RoundRobin) return first + start;
  int64_t best = first + start;
  for (int64_t k = 1; k < count; ++k) {
    const int64_t i = first + (start + k) % count;
    if (replicas[static_cast<size_t>(i)].requests() < replicas[static_cast<size_t>(best)].requests()) best = i;
  }
  return best;
}

}  // namespace mhcsim::serving::detail
