#pragma once
// The engine's event queue: a binary min-heap of 16-byte (time, order) events, where `order`
// packs (kind, seq, op) so that one integer compare breaks time ties by kind, then by push
// order, and a run is reproducible bit for bit (vidur orders its events the same way).
// Times are non-negative doubles (the engine rejects negative durations), whose IEEE-754 bit
// patterns order like their values, so both keys compare as integers; with that, choosing the
// smaller child is a branch-free select instead of an unpredictable jump.
#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mhcsim::sim::detail {

struct Event {
  uint64_t time_bits;  // std::bit_cast of the (non-negative) event time in seconds
  uint64_t order;

  double time_seconds() const { return std::bit_cast<double>(time_bits); }
};

inline bool before(const Event& a, const Event& b) {
  return (a.time_bits < b.time_bits) | ((a.time_bits == b.time_bits) & (a.order < b.order));
}

class EventHeap {
 public:
  void reserve(size_t n) { v_.reserve(n); }
  bool empty() const { return v_.empty(); }
  const Event& top() const { return v_.front(); }

  void push(const Event& e) {
    size_t i = v_.size();
    v_.push_back(e);
    sift_up(i, e);
  }

  // Floyd's pop: walk the hole from the root to a leaf along the smaller children, then sift
  // the last event up from there (it is usually late, so it rarely climbs).
  void pop() {
    const Event last = v_.back();
    v_.pop_back();
    const size_t n = v_.size();
    if (n == 0) return;
    size_t i = 0;
    for (size_t c = 1; c < n; c = 2 * i + 1) {
      c += static_cast<size_t>(c + 1 < n && before(v_[c + 1], v_[c]));
      v_[i] = v_[c];
      i = c;
    }
    sift_up(i, last);
  }

 private:
  void sift_up(size_t i, const Event& e) {
    while (i > 0) {
      const size_t parent = (i - 1) / 2;
      if (!before(e, v_[parent])) break;
      v_[i] = v_[parent];
      i = parent;
    }
    v_[i] = e;
  }

  std::vector<Event> v_;
};

}  // namespace mhcsim::sim::detail
