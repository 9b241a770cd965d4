// DualPipe and DualPipeV, following DualPipe.step() of deepseek-ai/DualPipe (dualpipe.py /
// dualpipev.py): eight steps whose lengths depend on the rank's distance h from the pipeline
// ends, with the reference's posting of sends and receives and its commits. Local phase 0 is
// the direction in which the rank sits early, phase 1 the other one; DualPipeV is the same
// order with h -> rank, H -> ranks, C -> micro-batches (DESIGN.md "Pipeline schedules").
#include <algorithm>
#include <array>

#include "mhcsim/schedules/schedule.h"

namespace mhcsim::schedules {
namespace {

struct Side {
  int32_t hop = 0;
  int32_t mb_base = 0;
  // Per-phase FIFO counters, as the reference keeps them (current_*_chunk_id).
  int32_t forwards = 0, backwards = 0;
  int32_t sent_f = 0, recv_f = 0, sent_b = 0, recv_b = 0;
};

class DualEmitter {
 public:
  DualEmitter(const Layout& layout, int32_t rank, std::array<Side, 2> sides, std::vector<Slot>& slots,
              std::vector<Action>& actions)
      : layout_(layout), rank_(rank), sides_(sides), slots_(slots), actions_(actions) {}

  // _forward_chunk / _backward_chunk / _forward_backward_chunk / _weight_chunk.
  void forward_chunk(int p, bool recv = true, bool send = true) {
    if (recv) recv_forward(p);
    commit();
    compute({SlotKind::Forward, next(p, &Side::forwards), sides_[p].hop, -1, -1});
    if (send) send_forward(p);
  }
  void backward_chunk(int p, bool zero_bubble, bool recv = true, bool send = true) {
    if (recv) recv_backward(p);
    commit();
    const int32_t mb = next(p, &Side::backwards);
    if (zero_bubble) {
      compute({SlotKind::BackwardInput, mb, sides_[p].hop, -1, -1});
      pending_w_.push_back({SlotKind::Weight, mb, sides_[p].hop, -1, -1});
    } else {
      compute({SlotKind::Backward, mb, sides_[p].hop, -1, -1});
    }
    if (send) send_backward(p);
  }
  void forward_backward_chunk(int pf, int pb, bool recv_f = true) {
    if (recv_f) recv_forward(pf);
    recv_backward(pb);
    commit();
    const int32_t fmb = next(pf, &Side::forwards);
    const int32_t bmb = next(pb, &Side::backwards);
    compute({SlotKind::ForwardBackward, fmb, sides_[pf].hop, bmb, sides_[pb].hop});
    send_forward(pf);
    send_backward(pb);
  }
  void weight_chunk() {  // WeightGradStore.pop(): FIFO over the zero-bubble backwards
    commit();
    compute(pending_w_[next_w_++]);
  }

  // _recv_forward / _send_forward / _recv_backward / _send_backward: nothing to do where the
  // neighbouring hop does not exist or runs on this rank (the bottom of DualPipeV's V).
  void recv_forward(int p) { post(ActionKind::PostRecv, Data::Activation, p, &Side::recv_f, -1); }
  void send_forward(int p) { post(ActionKind::PostSend, Data::Activation, p, &Side::sent_f, +1); }
  void recv_backward(int p) { post(ActionKind::PostRecv, Data::Gradient, p, &Side::recv_b, +1); }
  void send_backward(int p) { post(ActionKind::PostSend, Data::Gradient, p, &Side::sent_b, -1); }

  void commit() {
    if (posted_) actions_.push_back({ActionKind::Commit, Data::Activation, 0, 0, -1});
    posted_ = false;
  }

 private:
  int32_t next(int p, int32_t Side::*counter) { return sides_[p].mb_base + (sides_[p].*counter)++; }
  void compute(const Slot& s) {
    actions_.push_back({ActionKind::Compute, Data::Activation, s.mb, s.hop, static_cast<int32_t>(slots_.size())});
    slots_.push_back(s);
  }
  void post(ActionKind kind, Data data, int p, int32_t Side::*counter, int32_t peer_step) {
    const int32_t hop = sides_[p].hop;
    const int32_t peer = hop + peer_step;
    if (peer < 0 || peer >= layout_.hops) return;
    const int32_t mb = sides_[p].mb_base + sides_[p].*counter;
    if (layout_.rank_of(mb, peer) == rank_) return;
    ++(sides_[p].*counter);
    actions_.push_back({kind, data, mb, hop, -1});
    posted_ = true;
  }

  const Layout& layout_;
  int32_t rank_;
  std::array<Side, 2> sides_;
  std::vector<Slot>& slots_;
  std::vector<Action>& actions_;
  std::vector<Slot> pending_w_;
  size_t next_w_ = 0;
  bool posted_ = false;
};

}  // namespace

void append_dual_pipe(const ScheduleSpec& spec, const Layout& layout, int32_t rank, std::vector<Slot>& slots,
                      std::vector<Action>& actions) {
  const int32_t p = spec.ranks;
  const bool v = spec.kind == Schedule::DualPipeV;
  const int32_t h = v ? rank : std::min(rank, p - 1 - rank);
  const int32_t half_ranks = v ? p : p / 2;                                // H
  const int32_t chunks = v ? spec.micro_batches : spec.micro_batches / 2;  // C
  const bool middle = h == half_ranks - 1;                                 // DualPipe middle ranks, DualPipeV last rank

  std::array<Side, 2> sides{};
  if (v) {
    sides[0].hop = rank;
    sides[1].hop = 2 * p - 1 - rank;
  } else {
    const bool second_half = rank >= p / 2;  // its near direction is path 1
    sides[second_half ? 1 : 0].hop = rank;
    sides[second_half ? 0 : 1].hop = p - 1 - rank;
    sides[second_half ? 0 : 1].mb_base = chunks;
  }
  DualEmitter e(layout, rank, sides, slots, actions);
  const int32_t outer = half_ranks - h - 1;

  for (int32_t i = 0; i < 2 * outer; ++i) e.forward_chunk(0);  // step 1: nF0
  e.recv_forward(0);                                           // step 2: nF0F1
  const bool send_f0_early = middle && !v;
  for (int32_t i = 0; i < h + 1; ++i) {
    e.forward_chunk(0, false, send_f0_early);
    e.recv_forward(0);
    e.forward_chunk(1, true, !middle || i < h);
    if (!send_f0_early) e.send_forward(0);
  }
  for (int32_t i = 0; i < outer; ++i) {  // step 3: nB1W1F1 (ZB)
    e.backward_chunk(1, true);
    e.recv_forward(1);
    e.weight_chunk();
    e.forward_chunk(1, false);
  }
  const int32_t main_steps = chunks - 2 * half_ranks + h + 1;
  for (int32_t i = 0; i < main_steps; ++i) {  // step 4: nF0B1F1B0
    if (i == 0 && middle) {
      // The reference does not overlap these two, to shorten the bubble.
      e.forward_chunk(0, false, false);
      e.send_forward(1);
      e.backward_chunk(1, false, true, false);
      e.send_forward(0);
      e.send_backward(1);
    } else {
      e.forward_backward_chunk(0, 1, i != 0);
    }
    e.forward_backward_chunk(1, 0);
  }
  for (int32_t i = 0; i < outer; ++i) {  // step 5: nB1F1B0
    e.backward_chunk(1, false);
    e.forward_backward_chunk(1, 0);
  }
  bool zero_bubble = false;  // step 6: nB1B0, second half ZB
  for (int32_t i = 0; i < h + 1; ++i) {
    if (i == (h + 1) / 2 && h % 2 == 1) zero_bubble = true;
    e.backward_chunk(1, zero_bubble);
    if (i == (h + 1) / 2 && h % 2 == 0) zero_bubble = true;
    e.backward_chunk(0, zero_bubble);
  }
  for (int32_t i = 0; i < outer; ++i) {  // step 7: nWB0 (ZB)
    e.weight_chunk();
    e.backward_chunk(0, true);
  }
  for (int32_t i = 0; i < h + 1; ++i) e.weight_chunk();  // step 8: nW
  e.commit();
}

}  // namespace mhcsim::schedules
