#include "mhcsim/sim/engine.h"

#include <limits>
#include <queue>
#include <stdexcept>
#include <string>

namespace mhcsim::sim {
namespace {

enum class EventKind : uint64_t { OpFinished = 0 };

// 16 bytes: the time, then (kind, seq, op) packed so that one integer compare orders by kind,
// then seq. Every op is pushed exactly once, so seq < op count < 2^31 and both fit 31 bits.
struct Event {
  double time_seconds;
  uint64_t order;  // kind << 62 | seq << 31 | op

  int32_t op() const { return static_cast<int32_t>(order & 0x7fffffffu); }
};

struct Later {
  bool operator()(const Event& a, const Event& b) const {
    if (a.time_seconds != b.time_seconds) return a.time_seconds > b.time_seconds;
    return a.order > b.order;
  }
};

// What the event loop reads per op, packed in one cache-line-friendly record.
struct HotOp {
  double duration_seconds;
  int32_t stream;
  int32_t succ_begin;
};

class Engine {
 public:
  explicit Engine(const OpGraph& g)
      : g_(g),
        pending_(g.pred_count),
        head_(g.stream_begin.begin(), g.stream_begin.end() - 1),
        busy_(static_cast<size_t>(g.streams), 0) {
    // busy_ is int32_t, not uint8_t: stores through a char type may alias anything and would
    // make the compiler reload every vector's data pointer after each one.
    if (g.stream.size() >= (size_t{1} << 31))
      throw std::length_error("op graph too large for the event encoding (>= 2^31 ops)");
    hot_.resize(g.stream.size() + 1);
    for (size_t i = 0; i < g.stream.size(); ++i)
      hot_[i] = {g.duration_seconds[i], g.stream[i], g.succ_begin[i]};
    hot_.back() = {0.0, -1, g.succ_begin.back()};
    t_.start_seconds.assign(g.stream.size(), 0.0);
    t_.end_seconds.assign(g.stream.size(), 0.0);
    std::vector<Event> storage;
    storage.reserve(static_cast<size_t>(g.streams));
    instant_.reserve(static_cast<size_t>(g.streams));
    queue_ = std::priority_queue<Event, std::vector<Event>, Later>(Later{}, std::move(storage));
  }

  Timeline run() {
    for (int32_t s = 0; s < g_.streams; ++s) try_start(s, 0.0);
    drain_instant(0.0);
    while (!queue_.empty()) {
      const Event ev = queue_.top();
      queue_.pop();
      finish(ev.op(), ev.time_seconds);
      drain_instant(ev.time_seconds);
    }
    t_.events = static_cast<int64_t>(seq_);
    if (t_.events != g_.op_count())
      throw std::logic_error("simulation deadlocked: " + std::to_string(g_.op_count() - t_.events) +
                             " ops never ran (schedule order contradicts dependencies)");
    return std::move(t_);
  }

 private:
  void try_start(int32_t s, double now) {
    const auto si = static_cast<size_t>(s);
    if (busy_[si] || head_[si] == g_.stream_begin[si + 1]) return;
    const int32_t op = g_.stream_ops[static_cast<size_t>(head_[si])];
    const auto oi = static_cast<size_t>(op);
    if (pending_[oi] != 0) return;
    busy_[si] = 1;
    t_.start_seconds[oi] = now;
    const double duration = hot_[oi].duration_seconds;
    const uint64_t order = (static_cast<uint64_t>(EventKind::OpFinished) << 62) | (seq_++ << 31) |
                           static_cast<uint64_t>(op);
    // A zero-length op (a commit marker, a free transfer) would pop at `now` before anything
    // later; finishing it without the heap gives the same timestamps, since streams run in a
    // fixed order and an op starts the moment it is both ready and at its stream's head.
    if (duration == 0.0)
      instant_.push_back(op);
    else
      queue_.push({now + duration, order});
  }

  void drain_instant(double now) {
    while (!instant_.empty()) {
      const int32_t op = instant_.back();
      instant_.pop_back();
      finish(op, now);
    }
  }

  void finish(int32_t op, double now) {
    const auto oi = static_cast<size_t>(op);
    t_.end_seconds[oi] = now;
    if (now > t_.makespan_seconds) t_.makespan_seconds = now;
    const HotOp& h = hot_[oi];
    busy_[static_cast<size_t>(h.stream)] = 0;
    ++head_[static_cast<size_t>(h.stream)];
    try_start(h.stream, now);
    const int32_t end = hot_[oi + 1].succ_begin;
    for (int32_t k = h.succ_begin; k < end; ++k) {
      const auto next = static_cast<size_t>(g_.succ[static_cast<size_t>(k)]);
      if (--pending_[next] == 0) try_start(hot_[next].stream, now);
    }
  }

  const OpGraph& g_;
  std::vector<HotOp> hot_;
  std::vector<int32_t> pending_;
  std::vector<int32_t> head_;
  std::vector<int32_t> busy_;
  std::priority_queue<Event, std::vector<Event>, Later> queue_;
  std::vector<int32_t> instant_;  // zero-length ops started at the current time
  uint64_t seq_ = 0;
  Timeline t_;
};

}  // namespace

Timeline run(const OpGraph& graph) { return Engine(graph).run(); }

}  // namespace mhcsim::sim
