#pragma once
// The serving engine's typed event queue: (time, kind, seq) in a binary heap, `seq` the push
// order, so events at the same time run in a fixed order and a run is reproducible bit for bit
// (vidur's ordering, STYLE.md). Handlers push new events as the run goes. sim/'s heap is
// private to the pipeline engine, hence this small one.
#include <cstdint>
#include <queue>
#include <vector>

namespace mhcsim::serving::detail {

// Same-time order: an iteration's end frees blocks and emits tokens before a transfer lands or
// a new request is routed.
enum class EventKind : uint8_t { IterationEnd = 0, KvTransferDone = 1, Arrival = 2 };

struct Event {
  double time_s = 0;
  EventKind kind = EventKind::Arrival;
  uint64_t seq = 0;
  int64_t target = 0;  // replica (IterationEnd) or transfer slot (KvTransferDone)
};

class EventQueue {
 public:
  void push(double time_s, EventKind kind, int64_t target) { heap_.push(Event{time_s, kind, next_seq_++, target}); }
  bool empty() const { return heap_.empty(); }
  Event pop() {
    Event e = heap_.top();
    heap_.pop();
    return e;
  }

 private:
  struct Later {
    bool operator()(const Event& a, const Event& b) const {
      if (a.time_s != b.time_s) return a.time_s > b.time_s;
      if (a.kind != b.kind) return a.kind > b.kind;
      return a.seq > b.seq;
    }
  };
  std::priority_queue<Event, std::vector<Event>, Later> heap_;
  uint64_t next_seq_ = 0;
};

}  // namespace mhcsim::serving::detail
