// Golden timelines with exact timestamps (astra-network-analytical habit): the DeepSeek-V3
// overlap of one micro-batch's all-to-all behind another's compute inside an F&B slot, and
// a plain 1F1B with a costly stage-boundary link.
#include <catch2/catch.hpp>

#include <algorithm>
#include <utility>
#include <vector>

#include "sim_checks.h"

using namespace mhcsim;
using namespace mhcsim::sim;

namespace {

// Every piece (attention, dispatch, MLP, combine; backward attention and MLP input
// gradients) takes 1 s; weight gradients are free.
PhasePrices unit_pieces() {
  PhasePrices p;
  p.attn_forward_seconds = p.mlp_forward_seconds = 1;
  p.dispatch_seconds = p.combine_seconds = 1;
  p.attn_backward_input_seconds = p.mlp_backward_input_seconds = 1;
  return p;
}

// One rank, one hop, two micro-batches: F0, then F1 and B0 (overlapped or one after the
// other), then B1; `a2a_overlap` of each all-to-all may run beside compute.
Simulation one_rank(bool overlapped, double a2a_overlap = 1.0) {
  Program prog;
  prog.layout.ranks = 1;
  prog.layout.hops = 1;
  prog.layout.micro_batches = 2;
  prog.slots.push_back({SlotKind::Forward, 0, 0, -1, -1});
  if (overlapped) {
    prog.slots.push_back({SlotKind::ForwardBackward, 1, 0, 0, 0});
  } else {
    prog.slots.push_back({SlotKind::Forward, 1, 0, -1, -1});
    prog.slots.push_back({SlotKind::Backward, 0, 0, -1, -1});
  }
  prog.slots.push_back({SlotKind::Backward, 1, 0, -1, -1});
  prog.begin = {0, static_cast<int32_t>(prog.slots.size())};
  Simulation s;
  s.program = prog;
  auto prices = unit_pieces();
  prices.a2a_overlap = a2a_overlap;
  s.graph = build_op_graph(s.program, prices);
  s.timeline = run(s.graph);
  s.stats = summarize(s.graph, s.timeline);
  return s;
}

double end_of(const Simulation& s, UnitKind unit, Piece piece, int32_t mb, int32_t hop = 0) {
  for (int32_t op = 0; op < s.graph.op_count(); ++op) {
    const auto& l = s.graph.label[static_cast<size_t>(op)];
    if (l.unit == unit && l.piece == piece && l.mb == mb && l.hop == hop)
      return s.timeline.end_seconds[static_cast<size_t>(op)];
  }
  FAIL("op not found");
  return -1;
}

}  // namespace

TEST_CASE("F&B hides each micro-batch's all-to-all behind the other's compute") {
  const auto s = one_rank(true);
  test::check_invariants(s);
  // F0: attn [0,1] dispatch [1,2] mlp [2,3] combine [3,4]; a lone slot waits for its
  // all-to-alls, so the pair starts at 4: B0's combine gradient beside F1's attention [4,5],
  // then B0.mlp | F1.dispatch [5,6], F1.mlp | B0.dispatch [6,7], B0.attn | F1.combine [7,8].
  // B1 runs alone: [8,12].
  CHECK(end_of(s, UnitKind::Forward, Piece::Attention, 1) == 5);
  CHECK(end_of(s, UnitKind::Backward, Piece::Combine, 0) == 5);
  CHECK(end_of(s, UnitKind::Forward, Piece::Dispatch, 1) == 6);
  CHECK(end_of(s, UnitKind::Backward, Piece::Mlp, 0) == 6);
  CHECK(end_of(s, UnitKind::Forward, Piece::Combine, 1) == 8);
  CHECK(end_of(s, UnitKind::Backward, Piece::Attention, 0) == 8);
  CHECK(s.stats.step_seconds == 12);
  const auto& r = s.stats.ranks[0];
  CHECK(r.compute_busy_seconds == 8);
  CHECK(r.comm_busy_seconds == 8);
  CHECK(r.exposed_comm_seconds == 4);  // F0's two all-to-alls and B1's two
  CHECK(r.bubble_seconds == 0);        // never idle: 8 s computing + 4 s waiting on all-to-alls

  // One after the other, nothing hides: a lone slot's all-to-alls are issued in program order
  // and waited for (the step prices lone slots so), 16 s with 8 s of exposed all-to-all. (B1's
  // combine gradient ran beside B0's attention, and F1's attention beside F0's combine, before
  // the issue order was kept.)
  const auto serial = one_rank(false);
  test::check_invariants(serial);
  CHECK(serial.stats.step_seconds == 16);
  CHECK(serial.stats.ranks[0].exposed_comm_seconds == 8);
}

// Two all-to-alls never share the link: at overlap 0.5 one's serialised half on the compute
// stream used to run beside the other's hidden half, each at full bandwidth, so a smaller
// overlap gave a shorter step. Overlap 1 keeps a zero-length wait, so a lone slot's combine
// is still waited for.
TEST_CASE("the link runs one all-to-all at a time, and more overlap never slows the step") {
  double previous = 1e9;
  for (double overlap : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    const auto s = one_rank(true, overlap);
    test::check_invariants(s);
    CHECK(s.stats.step_seconds <= previous);
    previous = s.stats.step_seconds;
    // No instant where two all-to-all ops (hidden or serialised parts) of the rank both run.
    std::vector<std::pair<double, double>> spans;
    for (int32_t op = 0; op < s.graph.op_count(); ++op) {
      const auto& l = s.graph.label[static_cast<size_t>(op)];
      const double b = s.timeline.start_seconds[static_cast<size_t>(op)],
                   e = s.timeline.end_seconds[static_cast<size_t>(op)];
      if ((l.piece == Piece::Dispatch || l.piece == Piece::Combine) && e > b) spans.emplace_back(b, e);
    }
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i) CHECK(spans[i].first >= spans[i - 1].second - 1e-12);
  }
  // Overlap 0: every all-to-all exposed, 8 s of compute + 8 s of all-to-all.
  CHECK(one_rank(true, 0.0).stats.step_seconds == 16);
  CHECK(one_rank(true, 1.0).stats.step_seconds == 12);
}

TEST_CASE("1F1B over a 0.5 s link: exact timeline") {
  auto prices = uniform_prices(1.0, 1.0, 1.0);
  prices.pp_send_seconds = 0.5;
  const auto s = simulate(test::make_spec(Schedule::OneF1B, 2, 2), prices);
  test::check_invariants(s);
  // rank 0: F0 [0,1] F1 [1,2]; rank 1: F0 [1.5,2.5] B0 [2.5,4.5] F1 [4.5,5.5] B1 [5.5,7.5];
  // rank 0: B0 [5,7], B1 [8,10].
  CHECK(end_of(s, UnitKind::Backward, Piece::Whole, 0, 0) == 7);
  CHECK(end_of(s, UnitKind::Backward, Piece::Whole, 0, 1) == 4.5);
  CHECK(end_of(s, UnitKind::Transfer, Piece::Send, 1, 0) == 2.5);
  CHECK(s.stats.step_seconds == 10);
  // 10 - 2 x (1 + 2) = 4 s without compute, of which B1's send [7.5,8] is exposed
  // communication and the rest bubble.
  CHECK(s.stats.ranks[1].exposed_comm_seconds == 0.5);
  CHECK(s.stats.ranks[1].bubble_seconds == 3.5);
}

TEST_CASE("parallel.overlap: the unhidden share of each all-to-all waits on the compute stream") {
  // Overlap 0: every all-to-all is serialised with the compute, 4 x (2 + 2) = 16 s; overlap 1:
  // the F&B slot hides what it can, 12 s (above).
  CHECK(one_rank(true, 0.0).stats.step_seconds == 16);
  CHECK(one_rank(true, 1.0).stats.step_seconds == 12);
  // Overlap 0.5: each all-to-all is 0.5 s on its stream and 0.5 s on the compute stream, which
  // runs the serialised half just before the unit's next piece. F0 [0,4]; the pair starts B0's
  // combine [4,4.5] beside F1's attention [4,5], then the compute stream runs B0.combine*
  // [5,5.5] B0.mlp [5.5,6.5] F1.dispatch* [6.5,7] F1.mlp [7,8] B0.dispatch* [8,8.5] B0.attn
  // [8.5,9.5] F1.combine* [9.5,10]; B1 [10,14].
  const auto s = one_rank(true, 0.5);
  test::check_invariants(s);
  CHECK(end_of(s, UnitKind::Forward, Piece::Mlp, 1) == 8);
  CHECK(end_of(s, UnitKind::Backward, Piece::Attention, 0) == 9.5);
  CHECK(s.stats.step_seconds == 14);
  const auto& r = s.stats.ranks[0];
  CHECK(r.compute_busy_seconds == 8);
  CHECK(r.exposed_comm_seconds == 6);  // 6.5 s of all-to-all, 0.5 s of it under F1's attention
  CHECK(r.bubble_seconds == 0);
  int serialised = 0;
  for (const auto& l : s.graph.label) {
    serialised += l.serialised;
    if (l.serialised) CHECK(is_communication(l));
  }
  CHECK(serialised == 8);  // every all-to-all of F0, the pair and B1
}

TEST_CASE("mHC's post kernel runs on the high-priority stream, counted once as compute") {
  auto prices = uniform_prices(2.0, 2.0, 1.0);
  prices.mhc_post_forward_seconds = 1;
  const auto s = simulate(test::make_spec(Schedule::OneF1B, 1, 1), prices);
  test::check_invariants(s);
  int high_priority_ops = 0;
  for (int32_t op = 0; op < s.graph.op_count(); ++op)
    if (s.graph.kind_of_stream(s.graph.stream[static_cast<size_t>(op)]) == StreamKind::HighPriority)
      ++high_priority_ops;
  CHECK(high_priority_ops == 1);
  CHECK(s.stats.step_seconds == 2 + 1 + 3);  // F, mHC post, B
  CHECK(s.stats.ranks[0].compute_busy_seconds == 6);
}
