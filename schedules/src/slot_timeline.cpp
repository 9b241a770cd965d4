#include "mhcsim/schedules/slot_timeline.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

namespace mhcsim::schedules {
namespace {

constexpr double kNotYet = -1.0;  // an output not produced yet (times are >= 0)

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

// Programs depend on the pipeline's shape only; generating one of PP 16 takes tens of
// microseconds, several times its timeline.
const Program& cached_program(const ScheduleSpec& spec) {
  constexpr size_t kKept = 4;
  thread_local std::array<std::pair<ScheduleSpec, Program>, kKept> kept{};
  thread_local size_t oldest = 0;
  for (const auto& [s, p] : kept)
    if (s == spec && !p.begin.empty()) return p;
  auto& slot = kept[oldest];
  oldest = (oldest + 1) % kKept;
  slot = {spec, generate_program(spec)};
  return slot.second;
}

// Replays a program rank by rank. Without explicit communication a unit's output is at the
// next hop's rank when its slot ends. With it (the DualPipes), as the reference and the
// simulator's op graph do: posted sends and receives are launched together at the rank's next
// commit, a transfer is done once its data is ready and both its sender and its receiver have
// launched it, and the commit holds the rank until every transfer launched there is done.
class Replay {
 public:
  Replay(const Program& program, const StageSlotPrices& prices)
      : p_(program), l_(program.layout), prices_(prices), explicit_(program.explicit_comm()) {
    const size_t units = static_cast<size_t>(l_.micro_batches) * static_cast<size_t>(l_.hops);
    f_out_.assign(units, kNotYet);
    b_out_.assign(units, kNotYet);
    if (explicit_) {
      send_launch_.assign(2 * units, kNotYet);
      recv_launch_.assign(2 * units, kNotYet);
    }
    const auto ranks = static_cast<size_t>(l_.ranks);
    next_.assign(ranks, 0);
    clock_.assign(ranks, 0.0);
    posted_.resize(ranks);
    waiting_.resize(ranks);
    launched_.assign(ranks, false);
    t_.busy_seconds.assign(ranks, 0.0);
  }

  SlotTimeline run() {
    // Each pass runs every rank as far as it can; a pass that runs nothing before every rank
    // is through is a deadlock.
    const auto& begin = explicit_ ? p_.action_begin : p_.begin;
    size_t left = explicit_ ? p_.actions.size() : p_.slots.size();
    for (bool up = true; left > 0; up = !up) {
      // Activations travel up the ranks and gradients down (DualPipe: both ways): alternating
      // the direction of the passes lets most of a chain advance within one pass.
      size_t ran = 0;
      for (int32_t k = 0; k < l_.ranks; ++k) ran += advance(up ? k : l_.ranks - 1 - k, begin);
      if (ran == 0) throw std::logic_error("slot_timeline: the schedule's program deadlocks");
      left -= ran;
    }
    t_.makespan_seconds = *std::max_element(clock_.begin(), clock_.end());
    return std::move(t_);
  }

 private:
  size_t unit(int32_t mb, int32_t hop) const {
    return static_cast<size_t>(mb) * static_cast<size_t>(l_.hops) + static_cast<size_t>(hop);
  }
  // The transfer of unit (mb, hop)'s activation (or gradient).
  size_t transfer(bool activation, int32_t mb, int32_t hop) const { return 2 * unit(mb, hop) + (activation ? 0 : 1); }
  const SlotPrices& stage(int32_t hop) const { return hop == l_.hops - 1 ? prices_.last : prices_.middle; }

  // When unit (mb, hop)'s output is at the rank running `to_hop`, or kNotYet.
  double arrival(bool activation, int32_t mb, int32_t hop, int32_t to_hop) const {
    const double ready = (activation ? f_out_ : b_out_)[unit(mb, hop)];
    if (!explicit_ || ready == kNotYet || l_.rank_of(mb, hop) == l_.rank_of(mb, to_hop)) return ready;
    const size_t t = transfer(activation, mb, hop);
    if (send_launch_[t] == kNotYet || recv_launch_[t] == kNotYet) return kNotYet;
    return std::max({ready, send_launch_[t], recv_launch_[t]});
  }
  double forward_input(int32_t mb, int32_t hop) const { return hop == 0 ? 0.0 : arrival(true, mb, hop - 1, hop); }
  double backward_input(int32_t mb, int32_t hop) const {
    return hop == l_.hops - 1 ? f_out_[unit(mb, hop)] : arrival(false, mb, hop + 1, hop);
  }

  // Runs slot s on rank r if its inputs are there.
  bool compute(int32_t r, const Slot& s) {
    const auto ri = static_cast<size_t>(r);
    double ready = clock_[ri], seconds = 0;
    const SlotPrices& st = stage(s.hop);
    switch (s.kind) {
      case SlotKind::Forward:
      case SlotKind::Backward:
      case SlotKind::BackwardInput: {
        const bool fwd = s.kind == SlotKind::Forward;
        const double in = fwd ? forward_input(s.mb, s.hop) : backward_input(s.mb, s.hop);
        if (in == kNotYet) return false;
        ready = std::max(ready, in);
        seconds = fwd                            ? st.forward_seconds
                  : s.kind == SlotKind::Backward ? st.backward_seconds
                                                 : st.backward_input_seconds;
        (fwd ? f_out_ : b_out_)[unit(s.mb, s.hop)] = ready + seconds;
        break;
      }
      case SlotKind::Weight:
        seconds = st.weight_seconds;  // after its own B, earlier on this rank
        break;
      case SlotKind::ForwardBackward: {
        const double f_in = forward_input(s.mb, s.hop), b_in = backward_input(s.mb2, s.hop2);
        if (f_in == kNotYet || b_in == kNotYet) return false;
        ready = std::max({ready, f_in, b_in});
        const auto& fb = prices_.forward_backward_seconds;
        seconds = fb[s.hop == l_.hops - 1 ? 1 : 0][s.hop2 == l_.hops - 1 ? 1 : 0];
        f_out_[unit(s.mb, s.hop)] = b_out_[unit(s.mb2, s.hop2)] = ready + seconds;
        break;
      }
    }
    clock_[ri] = ready + seconds;
    t_.busy_seconds[ri] += seconds;
    return true;
  }

  // A commit: launches what was posted (once), then holds the rank until it is all done.
  bool commit(int32_t r) {
    const auto ri = static_cast<size_t>(r);
    auto& waiting = waiting_[ri];
    if (!launched_[ri]) {
      for (const auto& [t, is_send] : posted_[ri]) (is_send ? send_launch_ : recv_launch_)[t] = clock_[ri];
      waiting.swap(posted_[ri]);
      posted_[ri].clear();
      launched_[ri] = true;
    }
    double done = clock_[ri];
    for (const auto& [t, is_send] : waiting) {
      const double ready = (t % 2 == 0 ? f_out_ : b_out_)[t / 2];
      if (ready == kNotYet || send_launch_[t] == kNotYet || recv_launch_[t] == kNotYet) return false;
      done = std::max({done, ready, send_launch_[t], recv_launch_[t]});
    }
    clock_[ri] = done;
    waiting.clear();
    launched_[ri] = false;
    return true;
  }

  bool step(int32_t r, int32_t i) {
    if (!explicit_) return compute(r, p_.slots[static_cast<size_t>(i)]);
    const Action& a = p_.actions[static_cast<size_t>(i)];
    const bool activation = a.data == Data::Activation;
    switch (a.kind) {
      case ActionKind::Compute:
        return compute(r, p_.slots[static_cast<size_t>(a.slot)]);
      case ActionKind::PostSend:  // (mb, hop) is the producer
        posted_[static_cast<size_t>(r)].emplace_back(transfer(activation, a.mb, a.hop), true);
        return true;
      case ActionKind::PostRecv:  // (mb, hop) is the consumer
        posted_[static_cast<size_t>(r)].emplace_back(transfer(activation, a.mb, activation ? a.hop - 1 : a.hop + 1),
                                                     false);
        return true;
      case ActionKind::Commit:
        return commit(r);
    }
    return false;
  }

  // Runs rank r's next slots or actions while it can; returns how many ran.
  size_t advance(int32_t r, const std::vector<int32_t>& begin) {
    const auto ri = static_cast<size_t>(r);
    size_t ran = 0;
    for (int32_t& i = next_[ri]; begin[ri] + i < begin[ri + 1] && step(r, begin[ri] + i); ++i) ++ran;
    return ran;
  }

  const Program& p_;
  const Layout& l_;
  const StageSlotPrices& prices_;
  const bool explicit_;
  std::vector<double> f_out_, b_out_;              // per unit: when its output is ready
  std::vector<double> send_launch_, recv_launch_;  // per transfer: when each end launched it
  std::vector<int32_t> next_;                      // per rank: its next slot or action
  std::vector<double> clock_;                      // per rank: when it is free
  // Per rank: transfers posted since its last commit, and those its current commit waits for
  // (transfer, sent by this rank).
  std::vector<std::vector<std::pair<size_t, bool>>> posted_, waiting_;
  std::vector<bool> launched_;  // per rank: its current commit launched, still waiting
  SlotTimeline t_;
};

}  // namespace

SlotTimeline slot_timeline(const Program& program, const StageSlotPrices& prices) {
  check_prices(prices);
  return Replay(program, prices).run();
}

double dual_pipe_least_idle_seconds(const ScheduleSpec& spec, const StageSlotPrices& prices) {
  if (spec.kind != Schedule::DualPipe && spec.kind != Schedule::DualPipeV)
    throw std::invalid_argument("dual_pipe_least_idle_seconds: not a DualPipe schedule");
  validate(spec);
  ScheduleSpec fewest = spec;
  fewest.micro_batches = 2 * spec.ranks;
  const Program& program = cached_program(fewest);
  const SlotTimeline t = slot_timeline(program, prices);
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
  const double iterations = static_cast<double>(spec.micro_batches - fewest.micro_batches) /
                            (spec.kind == Schedule::DualPipe ? 2.0 : 1.0);
  double least = 0;
  for (int32_t r = 0; r < l.ranks; ++r) {
    const double idle = t.idle_seconds(r) + iterations * (period - (holds_last(r) ? end_pairs : middle_pairs));
    if (r == 0 || idle < least) least = idle;
  }
  return least;
}

}  // namespace mhcsim::schedules
