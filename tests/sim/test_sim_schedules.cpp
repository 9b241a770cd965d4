// Simulated schedules against the analytical pipeline table (deepseek-ai/DualPipe README,
// DESIGN.md "Pipeline schedules"): with free communication and uniform F/B/W, the simulated
// bubble and peak in-flight activations must equal the table's, for every PP and number of
// micro-batches tried; and every timeline must respect the stream and dependency invariants.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "mhcsim/cost/pipeline.h"
#include "mhcsim/error.h"
#include "sim_checks.h"

using namespace mhcsim;
using namespace mhcsim::sim;
using test::make_spec;

namespace {

// The canonical timing of the DualPipe README / DESIGN.md: F = 1, full B = 2 (input 1 +
// weight 1), W = 1, F&B = 3 (free communication: overlap hides nothing).
PhasePrices canonical() { return uniform_prices(1.0, 1.0, 1.0); }

// The table's bubble and activations, from cost_models (cost/pipeline.h).
double table_bubble(Schedule kind, int32_t p, int32_t n, int32_t v = 1) {
  const cost::PhaseTimes t{1.0, 2.0, 1.0, 3.0};
  return cost::pipeline_bubble_seconds(kind, p, n, t, v);
}

void check_every_rank_idles(const Simulation& s, double bubble) {
  for (const auto& r : s.stats.ranks) {
    INFO("rank " << r.rank);
    CHECK(r.bubble_seconds == bubble);
  }
  CHECK(s.stats.max_bubble_seconds == bubble);
}

}  // namespace

TEST_CASE("1F1B: bubble (PP-1)(F+B), PP activations on the first rank") {
  const int32_t p = GENERATE(1, 2, 3, 4, 5, 8, 16);
  const int32_t n = GENERATE(1, 3, 8, 17, 32);
  INFO("pp " << p << " micro-batches " << n);
  const auto s = simulate(make_spec(Schedule::OneF1B, p, n), canonical());
  test::check_invariants(s);
  check_every_rank_idles(s, table_bubble(Schedule::OneF1B, p, n));
  CHECK(s.stats.step_seconds == 3.0 * n + table_bubble(Schedule::OneF1B, p, n));
  for (int32_t r = 0; r < p; ++r)  // PP - r on rank r (memory prices each rank with its own)
    CHECK(s.stats.ranks[static_cast<size_t>(r)].peak_activation_chunks ==
          cost::pipeline_activation_chunks(Schedule::OneF1B, p, n, 1, false, r));
}

TEST_CASE("ZB-H1: bubble (PP-1)(F+B-2W), PP activations") {
  const int32_t p = GENERATE(1, 2, 3, 4, 5, 8, 16);
  // micro-batches: p, p + 1, 2p + 3, 4p
  const int32_t shape = GENERATE(0, 1, 2, 3);
  const int32_t n = std::array<int32_t, 4>{p, p + 1, 2 * p + 3, 4 * p}[static_cast<size_t>(shape)];
  INFO("pp " << p << " micro-batches " << n);
  const auto s = simulate(make_spec(Schedule::ZB1P, p, n), canonical());
  test::check_invariants(s);
  check_every_rank_idles(s, table_bubble(Schedule::ZB1P, p, n));
  CHECK(s.stats.max_peak_activation_chunks == cost::pipeline_activation_chunks(Schedule::ZB1P, p, n));
  for (int32_t r = 0; r < p; ++r)
    CHECK(s.stats.ranks[static_cast<size_t>(r)].peak_activation_chunks ==
          cost::pipeline_activation_chunks(Schedule::ZB1P, p, n, 1, false, r));
}

TEST_CASE("interleaved 1F1B: bubble (PP-1)(F+B) of a chunk, peak v*p + p - 1 chunks") {
  const int32_t p = GENERATE(2, 3, 4, 8);
  const int32_t v = GENERATE(2, 3, 4);
  const int32_t groups = GENERATE(1, 2, 3, 5);  // 1: m = PP, every forward first (v p chunks)
  const int32_t n = p * groups;
  INFO("pp " << p << " v " << v << " micro-batches " << n);
  const auto s = simulate(make_spec(Schedule::Interleaved1F1B, p, n, v), canonical());
  test::check_invariants(s);
  check_every_rank_idles(s, table_bubble(Schedule::Interleaved1F1B, p, n, v));
  // Megatron (Narayanan et al. 2021): activation factor 1 + (p-1)/(p v) of p micro-batches,
  // i.e. v p + p - 1 chunk activations on the first rank.
  CHECK(s.stats.ranks[0].peak_activation_chunks ==
        cost::pipeline_activation_chunks(Schedule::Interleaved1F1B, p, n, v));
  for (int32_t r = 0; r < p; ++r)
    CHECK(s.stats.ranks[static_cast<size_t>(r)].peak_activation_chunks ==
          cost::pipeline_activation_chunks(Schedule::Interleaved1F1B, p, n, v, false, r));
}

TEST_CASE("DualPipe: bubble (PP/2-1)(F&B+B-3W) on every rank, independent of N; PP+1 activations") {
  const int32_t p = GENERATE(2, 4, 6, 8, 10, 16);
  const int32_t shape = GENERATE(0, 1, 2, 3);
  const int32_t n = std::array<int32_t, 4>{2 * p, 2 * p + 2, 4 * p, 6 * p + 4}[static_cast<size_t>(shape)];
  INFO("pp " << p << " micro-batches " << n);
  const auto s = simulate(make_spec(Schedule::DualPipe, p, n), canonical());
  test::check_invariants(s);
  check_every_rank_idles(s, table_bubble(Schedule::DualPipe, p, n));
  CHECK(s.stats.step_seconds == 3.0 * n + table_bubble(Schedule::DualPipe, p, n));
  for (const auto& r : s.stats.ranks)
    CHECK(r.peak_activation_chunks == cost::pipeline_activation_chunks(Schedule::DualPipe, p, n));
}

TEST_CASE("DualPipeV: bubble (PP/2-1)(F&B+B-3W) with PP = 2 x ranks; PP+1 activations") {
  const int32_t p = GENERATE(1, 2, 3, 4, 5, 8);
  const int32_t shape = GENERATE(0, 1, 2);
  const int32_t n = std::array<int32_t, 3>{2 * p, 2 * p + 1, 5 * p + 3}[static_cast<size_t>(shape)];
  INFO("ranks " << p << " micro-batches " << n);
  const auto s = simulate(make_spec(Schedule::DualPipeV, p, n), canonical());
  test::check_invariants(s);
  check_every_rank_idles(s, table_bubble(Schedule::DualPipeV, p, n));
  for (const auto& r : s.stats.ranks)
    CHECK(r.peak_activation_chunks == cost::pipeline_activation_chunks(Schedule::DualPipeV, p, n));
}

TEST_CASE("DualPipe and DualPipeV away from F = B_input: the pacing rank idles what cost's formula says") {
  // The README formula holds at F = B_input; cost::pipeline_bubble_seconds adds the reference
  // timeline's own term elsewhere, which must be exact wherever W <= B_input.
  const auto kind = GENERATE(Schedule::DualPipe, Schedule::DualPipeV);
  const int32_t p = GENERATE(2, 4, 6, 8, 16);
  const int32_t per_rank = GENERATE(2, 3, 4);
  const double f = GENERATE(0.5, 1.0, 1.5, 3.0), bi = GENERATE(0.5, 1.0, 2.0, 4.0), w = GENERATE(0.25, 0.5, 2.0);
  if (w > bi) return;
  const int32_t n = per_rank * p;
  INFO(to_string(kind) << " ranks " << p << " micro-batches " << n << " F " << f << " B_input " << bi << " W " << w);
  const auto s = simulate(make_spec(kind, p, n), uniform_prices(f, bi, w));
  const cost::PhaseTimes t{f, bi + w, w, f + bi + w};
  CHECK_THAT(s.stats.bubble_seconds, Catch::Matchers::WithinAbs(cost::pipeline_bubble_seconds(kind, p, n, t), 1e-9));
}

TEST_CASE("DualPipe and DualPipeV: cost's count of lone and overlapped slots is the generator's") {
  const auto kind = GENERATE(Schedule::DualPipe, Schedule::DualPipeV);
  const int32_t p = GENERATE(2, 4, 6, 8, 16);
  const int32_t n = GENERATE(2, 3, 5) * p + (kind == Schedule::DualPipe ? 0 : 1);
  if (kind == Schedule::DualPipe && n % 2) return;
  const Program prog = generate_program(make_spec(kind, p, n));
  for (int32_t r = 0; r < p; ++r) {
    double lone_f = 0, lone_b = 0, pairs = 0;
    for (int32_t i = prog.begin[static_cast<size_t>(r)]; i < prog.begin[static_cast<size_t>(r) + 1]; ++i) {
      switch (prog.slots[static_cast<size_t>(i)].kind) {
        case SlotKind::Forward:
          ++lone_f;
          break;
        case SlotKind::Backward:
        case SlotKind::BackwardInput:
          ++lone_b;
          break;
        case SlotKind::ForwardBackward:
          ++pairs;
          break;
        case SlotKind::Weight:
          break;
        case SlotKind::ForwardForward:
          FAIL("a training schedule generated a forward-forward slot");
      }
    }
    const int32_t h = kind == Schedule::DualPipeV ? r : std::min(r, p - 1 - r);
    INFO(to_string(kind) << " ranks " << p << " micro-batches " << n << " rank " << r);
    const auto c = cost::dual_pipe_slots(kind, p, n, h);
    CHECK(c.lone_forward == lone_f);
    CHECK(c.lone_backward == lone_b);
    CHECK(c.pairs == pairs);
  }
}

// Megatron-LM's num_warmup_microbatches: (p - rank - 1) x 2 + (v - 1) x p interleaved, p - rank - 1
// in 1F1B, all of them when m = p; Megatron-Core's combined 1F1B adds one.
TEST_CASE("warm-up forwards: Megatron's counts, one more in combined 1F1B") {
  auto spec = make_spec(Schedule::Interleaved1F1B, 4, 8, 2);
  CHECK(schedules::warmup_forwards(spec, 0) == 10);
  CHECK(schedules::warmup_forwards(spec, 3) == 4);
  spec.combined = true;
  CHECK(schedules::warmup_forwards(spec, 0) == 11);
  CHECK(schedules::warmup_forwards(spec, 3) == 5);
  spec = make_spec(Schedule::Interleaved1F1B, 4, 4, 2);  // m = p: every forward first
  CHECK(schedules::warmup_forwards(spec, 3) == 8);
  spec = make_spec(Schedule::OneF1B, 4, 8);
  CHECK(schedules::warmup_forwards(spec, 0) == 3);
  CHECK(schedules::warmup_forwards(spec, 3) == 0);
  spec = make_spec(Schedule::OneF1B, 1, 8);
  spec.combined = true;
  CHECK(schedules::warmup_forwards(spec, 0) == 1);  // the guide's F0, then (F1, B0), ...
}

// Megatron-Core's combined 1F1B (its EP A2A overlap guide): the interleaved schedule (1F1B at
// PP 1) with one more warm-up forward and each steady-state F and B in one F&B slot.
TEST_CASE("combined 1F1B: each F and B once, steady state in F&B slots; cost counts and activations agree") {
  const int32_t p = GENERATE(1, 2, 4, 8);
  const int32_t v = p == 1 ? 1 : GENERATE(2, 3, 4);
  const int32_t n = p * GENERATE(2, 3, 5);
  const Schedule kind = p == 1 ? Schedule::OneF1B : Schedule::Interleaved1F1B;
  auto spec = make_spec(kind, p, n, v);
  spec.combined = true;
  INFO("pp " << p << " v " << v << " micro-batches " << n);
  const Program prog = generate_program(spec);
  std::vector<int32_t> forwards(static_cast<size_t>(n) * static_cast<size_t>(p * v)), backwards(forwards.size());
  const auto unit = [&](int32_t mb, int32_t hop) {
    return static_cast<size_t>(mb) * static_cast<size_t>(p * v) + static_cast<size_t>(hop);
  };
  for (int32_t r = 0; r < p; ++r) {
    int32_t lone_f = 0, lone_b = 0, pairs = 0;
    for (int32_t i = prog.begin[static_cast<size_t>(r)]; i < prog.begin[static_cast<size_t>(r) + 1]; ++i) {
      const Slot& sl = prog.slots[static_cast<size_t>(i)];
      REQUIRE(sl.kind != SlotKind::BackwardInput);
      REQUIRE(sl.kind != SlotKind::Weight);
      if (sl.kind == SlotKind::Forward) ++lone_f, ++forwards[unit(sl.mb, sl.hop)];
      if (sl.kind == SlotKind::Backward) ++lone_b, ++backwards[unit(sl.mb, sl.hop)];
      if (sl.kind == SlotKind::ForwardBackward) {
        ++pairs, ++forwards[unit(sl.mb, sl.hop)], ++backwards[unit(sl.mb2, sl.hop2)];
        CHECK(sl.mb != sl.mb2);  // the extra warm-up forward keeps each pair independent
      }
    }
    INFO("rank " << r);
    CHECK(lone_f == schedules::warmup_forwards(spec, r));
    CHECK(lone_b == lone_f);
    CHECK(pairs == n * v - lone_f);
    if (r == p - 1) {
      const auto c = cost::combined_1f1b_slots(kind, p, n, v);
      CHECK(c.lone_forward == lone_f);
      CHECK(c.pairs == pairs);
    }
  }
  for (size_t u = 0; u < forwards.size(); ++u) {
    INFO("unit " << u);
    CHECK(forwards[u] == 1);
    CHECK(backwards[u] == 1);
  }
  const auto s = simulate(spec, test::moe_prices());
  test::check_invariants(s);
  for (int32_t r = 0; r < p; ++r)
    CHECK(s.stats.ranks[static_cast<size_t>(r)].peak_activation_chunks ==
          cost::pipeline_activation_chunks(kind, p, n, v, true, r));
  // Pairing hides all-to-all the plain schedule exposes.
  spec.combined = false;
  if (p > 1) CHECK(s.stats.step_seconds < simulate(spec, test::moe_prices()).stats.step_seconds);
}

TEST_CASE("combined 1F1B refuses schedules Megatron-Core cannot run it on") {
  auto spec = make_spec(Schedule::OneF1B, 4, 8);
  spec.combined = true;
  CHECK_THROWS_WITH(generate_program(spec), Catch::Contains("parallel.combined_1f1b"));
  spec = make_spec(Schedule::Interleaved1F1B, 4, 8, 1);
  spec.combined = true;
  CHECK_THROWS_WITH(generate_program(spec), Catch::Contains("virtual_stages >= 2"));
  spec = make_spec(Schedule::DualPipe, 4, 8);
  spec.combined = true;
  CHECK_THROWS_WITH(generate_program(spec), Catch::Contains("parallel.combined_1f1b"));
  spec = make_spec(Schedule::ZB1P, 1, 8);
  spec.combined = true;
  CHECK_THROWS_WITH(generate_program(spec), Catch::Contains("parallel.combined_1f1b"));
}

TEST_CASE("invariants hold with all-to-all, mHC stream and costly PP links") {
  const auto kind =
      GENERATE(Schedule::OneF1B, Schedule::ZB1P, Schedule::Interleaved1F1B, Schedule::DualPipe, Schedule::DualPipeV);
  const int32_t p = GENERATE(2, 4, 8);
  const int32_t n = 4 * p;
  INFO(to_string(kind) << " pp " << p);
  const auto s = simulate(make_spec(kind, p, n, 2), test::moe_prices());
  test::check_invariants(s);
  CHECK(s.stats.step_seconds > 0);
  for (const auto& r : s.stats.ranks) {
    CHECK(r.bubble_seconds >= 0);
    CHECK(r.exposed_comm_seconds >= 0);
    CHECK(r.exposed_comm_seconds <= r.comm_busy_seconds);
    CHECK(r.peak_activation_bytes == 1000.0 * static_cast<double>(r.peak_activation_chunks));
  }
}

TEST_CASE("same input, bit-identical timeline") {
  const auto kind = GENERATE(Schedule::ZB1P, Schedule::DualPipe, Schedule::DualPipeV);
  const auto spec = make_spec(kind, 8, 24);
  const auto a = simulate(spec, test::moe_prices());
  const auto b = simulate(spec, test::moe_prices());
  CHECK(a.timeline.start_seconds == b.timeline.start_seconds);
  CHECK(a.timeline.end_seconds == b.timeline.end_seconds);
  CHECK(a.timeline.events == b.timeline.events);
}

namespace {

// The same graph with op `op` renamed to new_id[op]; new_id must keep each stream's ops in
// increasing id for the engine to accept it.
OpGraph renumbered(const OpGraph& g, const std::vector<int32_t>& new_id) {
  const auto n = static_cast<size_t>(g.op_count());
  auto at = [&](int32_t op) { return static_cast<size_t>(new_id[static_cast<size_t>(op)]); };
  OpGraph h = g;
  std::vector<int32_t> degree(n);
  for (size_t op = 0; op < n; ++op) {
    const auto i = at(static_cast<int32_t>(op));
    h.stream[i] = g.stream[op];
    h.duration_seconds[i] = g.duration_seconds[op];
    h.label[i] = g.label[op];
    h.pred_count[i] = g.pred_count[op];
    degree[i] = g.succ_begin[op + 1] - g.succ_begin[op];
  }
  for (size_t i = 0; i < n; ++i) h.succ_begin[i + 1] = h.succ_begin[i] + degree[i];
  for (size_t op = 0; op < n; ++op) {
    auto k = static_cast<size_t>(h.succ_begin[at(static_cast<int32_t>(op))]);
    for (int32_t e = g.succ_begin[op]; e < g.succ_begin[op + 1]; ++e)
      h.succ[k++] = new_id[static_cast<size_t>(g.succ[static_cast<size_t>(e)])];
  }
  for (auto& op : h.stream_ops) op = new_id[static_cast<size_t>(op)];
  for (auto& op : h.forward_first_op) op = new_id[static_cast<size_t>(op)];
  for (auto& op : h.backward_last_op) op = new_id[static_cast<size_t>(op)];
  return h;
}

}  // namespace

// An op starts at max(end of its stream's previous op, ends of its predecessors), so neither
// the op numbering nor the order in which same-time events pop may change any time.
TEST_CASE("op numbering does not change the timeline") {
  const auto kind = GENERATE(Schedule::OneF1B, Schedule::DualPipe);
  const auto s = simulate(make_spec(kind, 8, 32), test::moe_prices());
  std::vector<int32_t> new_id(static_cast<size_t>(s.graph.op_count()));
  for (size_t i = 0; i < new_id.size(); ++i)  // stream by stream: ids no longer follow time
    new_id[static_cast<size_t>(s.graph.stream_ops[i])] = static_cast<int32_t>(i);
  const auto t = run(renumbered(s.graph, new_id));
  CHECK(t.events == s.timeline.events);
  CHECK(t.makespan_seconds == s.timeline.makespan_seconds);
  size_t same = 0;
  for (size_t op = 0; op < new_id.size(); ++op) {
    const auto i = static_cast<size_t>(new_id[op]);
    same += t.start_seconds[i] == s.timeline.start_seconds[op] && t.end_seconds[i] == s.timeline.end_seconds[op];
  }
  CHECK(same == new_id.size());

  std::vector<int32_t> reversed(new_id.size());  // breaks every stream's increasing order
  for (size_t op = 0; op < reversed.size(); ++op) reversed[op] = static_cast<int32_t>(reversed.size() - 1 - op);
  CHECK_THROWS_AS(run(renumbered(s.graph, reversed)), std::logic_error);
}

TEST_CASE("the engine rejects negative and non-finite durations") {
  using Catch::Matchers::Contains;
  const auto spec = make_spec(Schedule::OneF1B, 4, 8);
  CHECK_THROWS_WITH(simulate(spec, uniform_prices(1.0, -3.0, 1.0)), Contains("expected finite and >= 0"));
  CHECK_THROWS_AS(simulate(spec, uniform_prices(std::nan(""), 1.0, 1.0)), std::invalid_argument);
  CHECK_THROWS_AS(simulate(spec, uniform_prices(1.0, 1.0, std::numeric_limits<double>::infinity())),
                  std::invalid_argument);
}

TEST_CASE("hundreds to a thousand pipeline ranks simulate") {
  const auto s = simulate(make_spec(Schedule::OneF1B, 1024, 8), canonical());
  CHECK(s.stats.max_bubble_seconds == table_bubble(Schedule::OneF1B, 1024, 8));
  const auto d = simulate(make_spec(Schedule::DualPipe, 256, 512), canonical());
  CHECK(d.stats.max_bubble_seconds == table_bubble(Schedule::DualPipe, 256, 512));
}

TEST_CASE("schedules reject impossible pipeline shapes with a SpecError naming the key") {
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(simulate(make_spec(Schedule::DualPipe, 3, 12), canonical()),
                    Contains("parallel.pp") && Contains("even"));
  CHECK_THROWS_WITH(simulate(make_spec(Schedule::DualPipe, 4, 6), canonical()),
                    Contains("parallel.micro_batches") && Contains(">= 2 x pp"));
  CHECK_THROWS_WITH(simulate(make_spec(Schedule::DualPipe, 4, 9), canonical()),
                    Contains("parallel.micro_batches") && Contains("even"));
  CHECK_THROWS_WITH(simulate(make_spec(Schedule::DualPipeV, 4, 7), canonical()), Contains("parallel.micro_batches"));
  CHECK_THROWS_WITH(simulate(make_spec(Schedule::Interleaved1F1B, 4, 6, 2), canonical()), Contains("multiple of pp"));
  CHECK_THROWS_AS(simulate(make_spec(Schedule::ZB1P, 4, 3), canonical()), SpecError);
  CHECK_THROWS_AS(simulate(make_spec(Schedule::OneF1B, 0, 3), canonical()), SpecError);
  CHECK_THROWS_AS(simulate(make_spec(Schedule::OneF1B, 2, 0), canonical()), SpecError);
}
