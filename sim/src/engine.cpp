#include "mhcsim/sim/engine.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "event_heap.h"

namespace mhcsim::sim {
namespace {

enum class EventKind : uint64_t { OpFinished = 0 };

// (kind, seq, op) in one word: kind << 62 | seq << 31 | op. Every op is pushed exactly once,
// so seq < op count < 2^31 and both fit 31 bits.
uint64_t event_order(EventKind kind, uint64_t seq, int32_t op) {
  return (static_cast<uint64_t>(kind) << 62) | (seq << 31) | static_cast<uint64_t>(op);
}
int32_t op_of(const detail::Event& e) { return static_cast<int32_t>(e.order & 0x7fffffffu); }

// What the event loop reads per op, in one 32-byte record (two per cache line), so that
// checking, starting and finishing an op each cost one line instead of one per array. The
// first two successors are kept in the record (three in four ops have at most two); the rest
// follow in `more_succ_`, ended by kNoOp.
constexpr int32_t kNoOp = -1;
constexpr size_t kInlineSuccessors = 2;

struct OpState {
  double time_seconds;  // the op's duration until it starts, then its start time
  int32_t pending;      // predecessors not yet finished
  int32_t stream;
  int32_t next_in_stream;           // the op its stream runs after it, kNoOp for the last
  int32_t succ[kInlineSuccessors];  // kNoOp where absent
  int32_t more_succ;                // index into more_succ_ of the further successors, or kNoOp
};
static_assert(sizeof(OpState) == 32);

struct StreamState {
  int32_t head;  // the next op to run, kNoOp once the stream is done
  int32_t busy;
};

// Event times compare as integers (event_heap.h), which needs non-negative durations.
void check_duration(double d, size_t op) {
  if (!(d >= 0.0 && std::isfinite(d)))
    throw std::invalid_argument("op " + std::to_string(op) + " has duration " + std::to_string(d) +
                                " s (expected finite and >= 0)");
}

void check_graph(const OpGraph& g) {
  if (g.stream.size() >= (size_t{1} << 31))
    throw std::length_error("op graph too large for the event encoding (>= 2^31 ops)");
  for (size_t s = 0; s + 1 < g.stream_begin.size(); ++s) {
    const auto b = static_cast<size_t>(g.stream_begin[s]), e = static_cast<size_t>(g.stream_begin[s + 1]);
    for (size_t i = b + 1; i < e; ++i)
      if (g.stream_ops[i] <= g.stream_ops[i - 1])
        throw std::logic_error("op graph: stream " + std::to_string(s) + " does not run its ops in increasing id");
  }
}

class Engine {
 public:
  // One pass in id order: since a stream runs its ops in increasing id, an op is linked to the
  // next one of its stream when that one comes by.
  explicit Engine(const OpGraph& g) : streams_(static_cast<size_t>(g.streams), {kNoOp, 0}) {
    check_graph(g);
    const size_t n = g.stream.size();
    std::vector<int32_t> last(streams_.size(), kNoOp);
    ops_.reserve(n);
    // An op with k > 2 successors takes k - 2 entries and an end mark there, never more than k.
    more_succ_.reserve(g.succ.size());
    for (size_t i = 0; i < n; ++i) {
      const auto s = static_cast<size_t>(g.stream[i]);
      auto& link = last[s] == kNoOp ? streams_[s].head : ops_[static_cast<size_t>(last[s])].next_in_stream;
      link = last[s] = static_cast<int32_t>(i);
      ops_.push_back(record(g, i));
    }
    // A stream has at most one op in flight, so neither queue ever outgrows the stream count.
    queue_.reserve(streams_.size());
    instant_.reserve(streams_.size());
  }

  Timeline run(const OpGraph& g) {
    for (size_t s = 0; s < streams_.size(); ++s) try_start(static_cast<int32_t>(s), 0.0);
    drain_instant(0.0);
    while (!queue_.empty()) {
      const detail::Event ev = queue_.top();
      queue_.pop();
      const double now = ev.time_seconds();
      finish(op_of(ev), now);
      drain_instant(now);
    }
    if (seq_ != ops_.size())
      throw std::logic_error("simulation deadlocked: " + std::to_string(ops_.size() - seq_) +
                             " ops never ran (schedule order contradicts dependencies)");
    return timeline(g);
  }

 private:
  OpState record(const OpGraph& g, size_t i) {
    check_duration(g.duration_seconds[i], i);
    OpState o{g.duration_seconds[i], g.pred_count[i], g.stream[i], kNoOp, {kNoOp, kNoOp}, kNoOp};
    const auto b = static_cast<size_t>(g.succ_begin[i]), e = static_cast<size_t>(g.succ_begin[i + 1]);
    for (size_t k = b; k < e && k - b < kInlineSuccessors; ++k) o.succ[k - b] = g.succ[k];
    if (e - b > kInlineSuccessors) {
      o.more_succ = static_cast<int32_t>(more_succ_.size());
      more_succ_.insert(more_succ_.end(), g.succ.begin() + static_cast<std::ptrdiff_t>(b + kInlineSuccessors),
                        g.succ.begin() + static_cast<std::ptrdiff_t>(e));
      more_succ_.push_back(kNoOp);
    }
    return o;
  }

  // Starts the head of stream s if the stream is idle and the head's inputs are done.
  void try_start(int32_t s, double now) {
    StreamState& st = streams_[static_cast<size_t>(s)];
    if (st.busy || st.head == kNoOp || ops_[static_cast<size_t>(st.head)].pending != 0) return;
    st.busy = 1;
    start(st.head, now);
  }

  void start(int32_t op, double now) {
    OpState& o = ops_[static_cast<size_t>(op)];
    const double duration = o.time_seconds;
    o.time_seconds = now;
    const uint64_t order = event_order(EventKind::OpFinished, seq_++, op);
    // A zero-length op (a commit marker, a free transfer) would pop at `now` before anything
    // later; finishing it without the heap gives the same timestamps, since streams run in a
    // fixed order and an op starts the moment it is both ready and at its stream's head.
    if (duration == 0.0)
      instant_.push_back(op);
    else
      queue_.push({std::bit_cast<uint64_t>(now + duration), order});
    // While the op runs, fetch the records its finish will touch (a large graph does not fit
    // in the cache, and these loads would otherwise stall the loop one after another).
    if (o.next_in_stream != kNoOp) __builtin_prefetch(&ops_[static_cast<size_t>(o.next_in_stream)]);
    for (int32_t next : o.succ)
      if (next != kNoOp) __builtin_prefetch(&ops_[static_cast<size_t>(next)], 1);
    if (o.more_succ != kNoOp) __builtin_prefetch(&more_succ_[static_cast<size_t>(o.more_succ)]);
  }

  void drain_instant(double now) {
    while (!instant_.empty()) {
      const int32_t op = instant_.back();
      instant_.pop_back();
      finish(op, now);
    }
  }

  void finish(int32_t op, double now) {
    const OpState& o = ops_[static_cast<size_t>(op)];
    StreamState& st = streams_[static_cast<size_t>(o.stream)];
    st.busy = 0;
    st.head = o.next_in_stream;
    try_start(o.stream, now);
    for (int32_t next : o.succ)
      if (next != kNoOp) release(next, now);
    if (o.more_succ == kNoOp) return;
    for (auto k = static_cast<size_t>(o.more_succ); more_succ_[k] != kNoOp; ++k) release(more_succ_[k], now);
  }

  void release(int32_t op, double now) {
    OpState& o = ops_[static_cast<size_t>(op)];
    if (--o.pending == 0) try_start(o.stream, now);
  }

  // An op ends at start + duration: the time its event was pushed for (zero-length ops end
  // where they start), so the end times need not be stored during the run.
  Timeline timeline(const OpGraph& g) const {
    Timeline t;
    t.start_seconds.reserve(ops_.size());
    t.end_seconds.reserve(ops_.size());
    for (size_t i = 0; i < ops_.size(); ++i) {
      t.start_seconds.push_back(ops_[i].time_seconds);
      t.end_seconds.push_back(ops_[i].time_seconds + g.duration_seconds[i]);
      t.makespan_seconds = std::max(t.makespan_seconds, t.end_seconds.back());
    }
    t.events = static_cast<int64_t>(seq_);
    return t;
  }

  std::vector<OpState> ops_;
  std::vector<int32_t> more_succ_;
  std::vector<StreamState> streams_;
  detail::EventHeap queue_;
  std::vector<int32_t> instant_;  // zero-length ops started at the current time
  uint64_t seq_ = 0;
};

}  // namespace

Timeline run(const OpGraph& graph) { return Engine(graph).run(graph); }

}  // namespace mhcsim::sim
