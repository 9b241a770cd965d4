#include "mhcsim/sim/engine.h"

#include <queue>
#include <stdexcept>
#include <string>

namespace mhcsim::sim {
namespace {

enum class EventKind : uint32_t { OpFinished };

struct Event {
  double time_seconds;
  EventKind kind;
  uint64_t seq;
  int32_t op;
};

// Min-heap order on (time, kind, seq).
struct Later {
  bool operator()(const Event& a, const Event& b) const {
    if (a.time_seconds != b.time_seconds) return a.time_seconds > b.time_seconds;
    if (a.kind != b.kind) return a.kind > b.kind;
    return a.seq > b.seq;
  }
};

class Engine {
 public:
  explicit Engine(const OpGraph& g)
      : g_(g),
        pending_(g.pred_count),
        head_(g.stream_begin.begin(), g.stream_begin.end() - 1),
        busy_(static_cast<size_t>(g.streams), 0) {
    t_.start_seconds.assign(g.stream.size(), 0.0);
    t_.end_seconds.assign(g.stream.size(), 0.0);
    std::vector<Event> storage;
    storage.reserve(static_cast<size_t>(g.streams));
    queue_ = std::priority_queue<Event, std::vector<Event>, Later>(Later{}, std::move(storage));
  }

  Timeline run() {
    for (int32_t s = 0; s < g_.streams; ++s) try_start(s, 0.0);
    int64_t finished = 0;
    while (!queue_.empty()) {
      const Event ev = queue_.top();
      queue_.pop();
      ++t_.events;
      finish(ev.op, ev.time_seconds);
      ++finished;
    }
    if (finished != g_.op_count())
      throw std::logic_error("simulation deadlocked: " + std::to_string(g_.op_count() - finished) +
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
    const double end = now + g_.duration_seconds[oi];
    queue_.push({end, EventKind::OpFinished, seq_++, op});
  }

  void finish(int32_t op, double now) {
    const auto oi = static_cast<size_t>(op);
    t_.end_seconds[oi] = now;
    if (now > t_.makespan_seconds) t_.makespan_seconds = now;
    const int32_t s = g_.stream[oi];
    busy_[static_cast<size_t>(s)] = 0;
    ++head_[static_cast<size_t>(s)];
    try_start(s, now);
    for (int32_t k = g_.succ_begin[oi]; k < g_.succ_begin[oi + 1]; ++k) {
      const int32_t next = g_.succ[static_cast<size_t>(k)];
      if (--pending_[static_cast<size_t>(next)] == 0) try_start(g_.stream[static_cast<size_t>(next)], now);
    }
  }

  const OpGraph& g_;
  std::vector<int32_t> pending_;
  std::vector<int32_t> head_;
  std::vector<uint8_t> busy_;
  std::priority_queue<Event, std::vector<Event>, Later> queue_;
  uint64_t seq_ = 0;
  Timeline t_;
};

}  // namespace

Timeline run(const OpGraph& graph) { return Engine(graph).run(); }

}  // namespace mhcsim::sim
