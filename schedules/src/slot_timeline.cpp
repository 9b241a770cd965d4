#include "mhcsim/schedules/slot_timeline.h"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

namespace mhcsim::schedules {
namespace {

void check_price(double seconds) {
  if (!(seconds >= 0) || !std::isfinite(seconds))
    throw std::invalid_argument("slot_timeline: slot prices must be finite and >= 0");
}

void check_prices(const StageSlotPrices& p) {
  for (const SlotPrices* s : {&p.middle, &p.last})
    for (double v : {s->forward_seconds, s->backward_seconds, s->backward_input_seconds, s->weight_seconds})
      check_price(v);
  for (const auto& row : p.forward_backward_seconds)
    for (double v : row) check_price(v);
}

// A program flattened for its replay: every rank's steps (a step is a slot, or with explicit
// communication an action) with every index the replay needs worked out once, in one order the
// replay can follow straight through (execution_order).
// Values: per unit, its forward output (2u) and its backward output (2u + 1); a transfer carries
// one value to another rank and has its value's index.
struct Compiled {
  // A rank's program has compute steps and commits; the execution order puts the launch of a
  // commit's transfers where the rank reaches it, and the commit itself (the wait for them)
  // where they can be done.
  enum Kind : uint8_t { kCompute, kCommit, kLaunch };
  // The twelve prices a slot can have: F, B, B_input, W of the middle and the last stage, and
  // the four F&B pairs.
  enum Price : uint8_t { kF, kB = 2, kBInput = 4, kW = 6, kPair = 8 };
  struct Step {
    Kind kind = kCompute;
    uint8_t price = 0;          // kCompute: index into the twelve prices
    bool cross[2] = {};         // kCompute: input comes through a transfer
    int32_t rank = 0;           // in the execution order
    int32_t in[2] = {-1, -1};   // commits: their transfers, posted[in[0] .. in[1])
    int32_t out[2] = {-1, -1};  // kCompute: outputs
  };
  // A transfer a commit launches: the value it carries, and whether this rank sends it.
  struct Posted {
    int32_t value = 0;
    bool send = false;
  };
  Layout layout;
  std::vector<Posted> posted;
  size_t values = 0;
  std::vector<Step> order;  // kCompute, kLaunch and kCommit, everything each reads written before
};

// Each rank's steps in program order: kCompute and kCommit.
struct RankSteps {
  std::vector<Compiled::Step> steps;
  std::vector<int32_t> begin;  // per rank, into steps
};

// Which step can run first depends on the program only, never on the prices (a step waits for
// values being produced, not for times), so the order is worked out once per program by running
// it without times: each pass runs every rank as far as its inputs allow; a pass that runs
// nothing before every rank is through is a deadlock (std::logic_error).
std::vector<Compiled::Step> execution_order(const RankSteps& p, const Compiled& c) {
  struct Produced {
    bool ready = false, send_launched = false, recv_launched = false;
  };
  std::vector<Produced> values(c.values);
  const auto arrived = [&](int32_t v, bool cross) {
    const Produced& x = values[static_cast<size_t>(v)];
    return x.ready && (!cross || (x.send_launched && x.recv_launched));
  };
  const auto ranks = static_cast<size_t>(c.layout.ranks);
  std::vector<int32_t> next(ranks, 0);
  std::vector<uint8_t> launched(ranks, 0);
  std::vector<Compiled::Step> order;
  order.reserve(p.steps.size() + c.posted.size());
  const auto emit = [&](Compiled::Step st, Compiled::Kind kind, int32_t rank) {
    st.kind = kind;
    st.rank = rank;
    order.push_back(st);
  };
  // Runs rank r's next steps while it can; returns how many ran.
  const auto advance = [&](int32_t rank) {
    const auto r = static_cast<size_t>(rank);
    size_t ran = 0;
    for (int32_t& i = next[r]; p.begin[r] + i < p.begin[r + 1]; ++i, ++ran) {
      const Compiled::Step& st = p.steps[static_cast<size_t>(p.begin[r] + i)];
      if (st.kind == Compiled::kCompute) {
        for (int k = 0; k < 2; ++k)
          if (st.in[k] >= 0 && !arrived(st.in[k], st.cross[k])) return ran;
        for (int32_t v : st.out)
          if (v >= 0) values[static_cast<size_t>(v)].ready = true;
        emit(st, Compiled::kCompute, rank);
        continue;
      }
      if (st.in[0] == st.in[1]) continue;  // a commit of nothing holds nobody
      if (!launched[r]) {
        for (int32_t t = st.in[0]; t < st.in[1]; ++t) {
          const Compiled::Posted& x = c.posted[static_cast<size_t>(t)];
          (x.send ? values[static_cast<size_t>(x.value)].send_launched
                  : values[static_cast<size_t>(x.value)].recv_launched) = true;
        }
        launched[r] = 1;
        emit(st, Compiled::kLaunch, rank);
      }
      for (int32_t t = st.in[0]; t < st.in[1]; ++t)
        if (!arrived(c.posted[static_cast<size_t>(t)].value, true)) return ran;
      launched[r] = 0;
      emit(st, Compiled::kCommit, rank);
    }
    return ran;
  };
  size_t left = p.steps.size();
  while (left > 0) {
    size_t ran = 0;
    for (int32_t r = 0; r < c.layout.ranks; ++r) ran += advance(r);
    if (ran == 0) throw std::logic_error("slot_timeline: the schedule's program deadlocks");
    left -= ran;
  }
  return order;
}

Compiled compile(const Program& p) {
  Compiled c;
  const Layout& l = p.layout;
  c.layout = l;
  const bool explicit_comm = p.explicit_comm();
  RankSteps ranks;
  c.values = 2 * static_cast<size_t>(l.micro_batches) * static_cast<size_t>(l.hops);
  if (c.values > static_cast<size_t>(INT32_MAX))
    throw std::invalid_argument("slot_timeline: more micro-batches x hops than 32-bit indices hold");
  const auto value = [&](bool forward, int32_t mb, int32_t hop) { return 2 * (mb * l.hops + hop) + (forward ? 0 : 1); };
  const int32_t last = l.hops - 1;
  const auto is_last = [&](int32_t hop) { return hop == last ? 1 : 0; };
  // The input of a unit's forward (backward): the previous (next) hop's output, or for the last
  // stage's backward its own forward; through a transfer where that ran on another rank.
  const auto input = [&](Compiled::Step& st, int k, bool forward, int32_t mb, int32_t hop) {
    if (forward && hop == 0) return;
    if (!forward && hop == last) {
      st.in[k] = value(true, mb, hop);
      return;
    }
    const int32_t from = forward ? hop - 1 : hop + 1;
    st.in[k] = value(forward, mb, from);
    st.cross[k] = explicit_comm && l.rank_of(mb, from) != l.rank_of(mb, hop);
  };
  const auto slot_step = [&](const Slot& s) {
    Compiled::Step st;
    st.kind = Compiled::kCompute;
    switch (s.kind) {
      case SlotKind::Forward:
        st.price = static_cast<uint8_t>(Compiled::kF + is_last(s.hop));
        input(st, 0, true, s.mb, s.hop);
        st.out[0] = value(true, s.mb, s.hop);
        break;
      case SlotKind::Backward:
      case SlotKind::BackwardInput:
        st.price =
            static_cast<uint8_t>((s.kind == SlotKind::Backward ? Compiled::kB : Compiled::kBInput) + is_last(s.hop));
        input(st, 0, false, s.mb, s.hop);
        st.out[0] = value(false, s.mb, s.hop);
        break;
      case SlotKind::Weight:  // after its own B, earlier on this rank
        st.price = static_cast<uint8_t>(Compiled::kW + is_last(s.hop));
        break;
      case SlotKind::ForwardForward:
        throw std::logic_error("the slot timeline prices training programs; a forward-only program has no B");
      case SlotKind::ForwardBackward:
        st.price = static_cast<uint8_t>(Compiled::kPair + 2 * is_last(s.hop) + is_last(s.hop2));
        input(st, 0, true, s.mb, s.hop);
        input(st, 1, false, s.mb2, s.hop2);
        st.out[0] = value(true, s.mb, s.hop);
        st.out[1] = value(false, s.mb2, s.hop2);
        break;
    }
    return st;
  };
  if (!explicit_comm) {
    ranks.begin.assign(p.begin.begin(), p.begin.end());
    ranks.steps.reserve(p.slots.size());
    for (const Slot& s : p.slots) ranks.steps.push_back(slot_step(s));
    c.order = execution_order(ranks, c);
    return c;
  }
  // The posts between two commits become the later commit's range of transfers.
  ranks.begin.reserve(p.action_begin.size());
  for (int32_t r = 0; r < l.ranks; ++r) {
    ranks.begin.push_back(static_cast<int32_t>(ranks.steps.size()));
    const auto first = static_cast<size_t>(p.action_begin[static_cast<size_t>(r)]);
    const auto end = static_cast<size_t>(p.action_begin[static_cast<size_t>(r) + 1]);
    auto open = static_cast<int32_t>(c.posted.size());
    for (size_t i = first; i < end; ++i) {
      const Action& a = p.actions[i];
      const bool activation = a.data == Data::Activation;
      switch (a.kind) {
        case ActionKind::Compute:
          ranks.steps.push_back(slot_step(p.slots[static_cast<size_t>(a.slot)]));
          break;
        case ActionKind::PostSend:  // (mb, hop) is the producer
          c.posted.push_back({value(activation, a.mb, a.hop), true});
          break;
        case ActionKind::PostRecv:  // (mb, hop) is the consumer
          c.posted.push_back({value(activation, a.mb, activation ? a.hop - 1 : a.hop + 1), false});
          break;
        case ActionKind::Commit: {
          Compiled::Step st;
          st.kind = Compiled::kCommit;
          st.in[0] = open;
          st.in[1] = open = static_cast<int32_t>(c.posted.size());
          ranks.steps.push_back(st);
          break;
        }
      }
    }
  }
  ranks.begin.push_back(static_cast<int32_t>(ranks.steps.size()));
  c.order = execution_order(ranks, c);
  return c;
}

// Programs depend on the pipeline's shape only; generating and flattening one of PP 16 takes
// several times its replay.
const Compiled& cached(const ScheduleSpec& spec) {
  constexpr size_t kKept = 8;
  thread_local std::array<std::pair<ScheduleSpec, Compiled>, kKept> kept{};
  thread_local size_t oldest = 0;
  for (const auto& [s, c] : kept)
    if (s == spec && !c.order.empty()) return c;
  auto& slot = kept[oldest];
  oldest = (oldest + 1) % kKept;
  slot = {spec, compile(generate_program(spec))};
  return slot.second;
}

// Replays a flattened program in its execution order. Without explicit communication an output
// is at the next hop's rank when its slot ends. With it (the DualPipes), as the reference and
// the simulator's op graph do: posted sends and receives are launched together at the rank's
// next commit, a transfer is done once its value is ready and both its sender and its receiver
// have launched it, and the commit holds the rank until every transfer launched there is done.
// The order guarantees every time read here was written before, so nothing starts unset.
class Replay {
 public:
  Replay(const Compiled& c, const StageSlotPrices& prices)
      : c_(c), values_(std::make_unique_for_overwrite<Value[]>(c.values)) {
    const SlotPrices* stage[2] = {&prices.middle, &prices.last};
    for (int k = 0; k < 2; ++k) {
      price_[Compiled::kF + k] = stage[k]->forward_seconds;
      price_[Compiled::kB + k] = stage[k]->backward_seconds;
      price_[Compiled::kBInput + k] = stage[k]->backward_input_seconds;
      price_[Compiled::kW + k] = stage[k]->weight_seconds;
    }
    for (int f = 0; f < 2; ++f)
      for (int b = 0; b < 2; ++b) price_[Compiled::kPair + 2 * f + b] = prices.forward_backward_seconds[f][b];
    const auto ranks = static_cast<size_t>(c.layout.ranks);
    clock_.assign(ranks, 0.0);
    t_.busy_seconds.assign(ranks, 0.0);
  }

  SlotTimeline run() {
    for (const Compiled::Step& st : c_.order) {
      const auto r = static_cast<size_t>(st.rank);
      switch (st.kind) {
        case Compiled::kCompute:
          compute(r, st);
          break;
        case Compiled::kLaunch:
          for (int32_t t = st.in[0]; t < st.in[1]; ++t) {
            const Compiled::Posted& x = c_.posted[static_cast<size_t>(t)];
            (x.send ? values_[static_cast<size_t>(x.value)].send_launch
                    : values_[static_cast<size_t>(x.value)].recv_launch) = clock_[r];
          }
          break;
        case Compiled::kCommit:
          for (int32_t t = st.in[0]; t < st.in[1]; ++t)
            clock_[r] = std::max(clock_[r], arrival(c_.posted[static_cast<size_t>(t)].value, true));
          break;
      }
    }
    t_.makespan_seconds = *std::max_element(clock_.begin(), clock_.end());
    return std::move(t_);
  }

 private:
  // When value v is at the consumer (through its transfer if `cross`).
  double arrival(int32_t v, bool cross) const {
    const Value& x = values_[static_cast<size_t>(v)];
    return cross ? std::max(x.ready, std::max(x.send_launch, x.recv_launch)) : x.ready;
  }

  void compute(size_t r, const Compiled::Step& st) {
    double start = clock_[r];
    for (int k = 0; k < 2; ++k)
      if (st.in[k] >= 0) start = std::max(start, arrival(st.in[k], st.cross[k]));
    const double seconds = price_[st.price];
    clock_[r] = start + seconds;
    t_.busy_seconds[r] += seconds;
    for (int32_t v : st.out)
      if (v >= 0) values_[static_cast<size_t>(v)].ready = clock_[r];
  }

  const Compiled& c_;
  std::array<double, 12> price_{};
  struct Value {
    double ready;        // when it is ready
    double send_launch;  // when each end launched its transfer
    double recv_launch;
  };
  std::unique_ptr<Value[]> values_;
  std::vector<double> clock_;  // per rank: when it is free
  SlotTimeline t_;
};

}  // namespace

SlotTimeline slot_timeline(const Program& program, const StageSlotPrices& prices) {
  check_prices(prices);
  return Replay(compile(program), prices).run();
}

double dual_pipe_least_idle_seconds(const ScheduleSpec& spec, const StageSlotPrices& prices) {
  if (spec.kind != Schedule::DualPipe && spec.kind != Schedule::DualPipeV)
    throw std::invalid_argument("dual_pipe_least_idle_seconds: not a DualPipe schedule");
  if (spec.ranks > kMaxLeastIdleRanks)
    throw std::invalid_argument("dual_pipe_least_idle_seconds: more ranks than kMaxLeastIdleRanks");
  validate(spec);
  ScheduleSpec fewest = spec;
  fewest.micro_batches = 2 * spec.ranks;
  check_prices(prices);
  const Compiled& program = cached(fewest);
  const SlotTimeline t = Replay(program, prices).run();
  // Each further iteration: the ranks holding the last stage pair its forward with the first
  // stage's backward and the other way round, the others pair middle chunks.
  const Layout& l = program.layout;
  const int32_t last_hop = l.hops - 1;
  const auto& fb = prices.forward_backward_seconds;
  const double end_pairs = fb[0][1] + fb[1][0], middle_pairs = 2 * fb[0][0];
  const auto holds_last = [&](int32_t r) {
    return r == l.rank_of(0, last_hop) || (l.dual_paths && r == l.rank_of(l.micro_batches - 1, last_hop));
  };
  double period = 0;
  for (int32_t r = 0; r < l.ranks; ++r) period = std::max(period, holds_last(r) ? end_pairs : middle_pairs);
  const double iterations =
      static_cast<double>(spec.micro_batches - fewest.micro_batches) / (spec.kind == Schedule::DualPipe ? 2.0 : 1.0);
  double least = 0;
  for (int32_t r = 0; r < l.ranks; ++r) {
    const double idle = t.idle_seconds(r) + iterations * (period - (holds_last(r) ? end_pairs : middle_pairs));
    if (r == 0 || idle < least) least = idle;
  }
  return least;
}

}  // namespace mhcsim::schedules
