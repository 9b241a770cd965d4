// The simulator priced like `step` (issue 15): every stage at its own price (the last one
// carries the LM head), parallel.overlap of each all-to-all hidden, the exposed DP gradient
// sync; the terms of step_terms.h adding up on every rank; and the shipped training scenarios
// against the analytic step, within 5% / 10% or with the difference attributed to the
// simulator's refinements (versus_step.h).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "mhcsim/cost/memory.h"
#include "mhcsim/cost/step.h"
#include "mhcsim/sim/versus_step.h"
#include "shipped.h"
#include "sim_checks.h"

using namespace mhcsim;
using namespace mhcsim::sim;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using mhcsim::sim::test::shipped;

namespace {

double compute_seconds(const PhasePrices& p) {
  return p.forward_seconds() + p.backward_input_seconds() + p.backward_weight_seconds();
}

// What rank r computes in a step: every unit it runs, at its stage's price (no overlap among
// compute ops when every price is one compute piece).
double expected_compute(const Layout& l, const StagePrices& p, int32_t rank) {
  double sum = 0;
  for (int32_t mb = 0; mb < l.micro_batches; ++mb)
    for (int32_t hop = 0; hop < l.hops; ++hop)
      if (l.rank_of(mb, hop) == rank) sum += compute_seconds(p.of_stage(hop, l.hops));
  return sum;
}

void check_terms_add_up(const Simulation& s) {
  for (const auto& r : s.stats.ranks) {
    INFO("rank " << r.rank);
    CHECK_THAT(r.terms().step_seconds(), WithinRel(s.stats.step_seconds, 1e-9));
    CHECK(r.bubble_seconds >= 0);
  }
  const auto& pacing = s.stats.ranks[static_cast<size_t>(s.stats.pacing_rank)];
  for (const auto& r : s.stats.ranks) CHECK(pacing.bubble_seconds <= r.bubble_seconds);
  CHECK(s.stats.bubble_seconds == pacing.bubble_seconds);
}

}  // namespace

TEST_CASE("the last stage runs at its own price on the rank(s) that hold it") {
  const auto kind =
      GENERATE(Schedule::OneF1B, Schedule::ZB1P, Schedule::Interleaved1F1B, Schedule::DualPipe, Schedule::DualPipeV);
  const int32_t p = GENERATE(2, 4);
  INFO(to_string(kind) << " pp " << p);
  StagePrices prices = uniform_stages(uniform_prices(1.0, 1.0, 1.0));
  prices.last_chunk = uniform_prices(1.5, 1.25, 0.5);  // LM head: heavier F, lighter W
  prices.chunk.activation_bytes = 1;
  prices.last_chunk.activation_bytes = 7;
  const auto s = simulate(test::make_spec(kind, p, 4 * p, 2), prices);
  test::check_invariants(s);
  check_terms_add_up(s);
  const Layout& l = s.graph.layout;
  // 1F1B / ZB1P / interleaved: the last rank; DualPipe: the last rank for the first half of
  // the micro-batches, rank 0 for the second (one direction each); DualPipeV: rank 0.
  CHECK(l.rank_of(0, l.hops - 1) == (kind == Schedule::DualPipeV ? 0 : p - 1));
  if (kind == Schedule::DualPipe) CHECK(l.rank_of(l.micro_batches - 1, l.hops - 1) == 0);
  for (const auto& r : s.stats.ranks) {
    INFO("rank " << r.rank);
    CHECK_THAT(r.compute_busy_seconds, WithinRel(expected_compute(l, prices, r.rank), 1e-12));
    // 1 byte per chunk activation, 7 for the last stage's
    const bool holds_last = l.rank_of(0, l.hops - 1) == r.rank || l.rank_of(l.micro_batches - 1, l.hops - 1) == r.rank;
    if (holds_last)
      CHECK(r.peak_activation_bytes > static_cast<double>(r.peak_activation_chunks));
    else
      CHECK(r.peak_activation_bytes == static_cast<double>(r.peak_activation_chunks));
  }
}

TEST_CASE("the exposed DP gradient sync closes the step on every rank") {
  const auto spec = test::make_spec(Schedule::OneF1B, 4, 8);
  const auto plain = simulate(spec, uniform_prices(1.0, 1.0, 1.0));
  StagePrices prices = uniform_stages(uniform_prices(1.0, 1.0, 1.0));
  prices.grad_sync_seconds = 0.5;
  const auto s = simulate(spec, prices);
  test::check_invariants(s);
  check_terms_add_up(s);
  CHECK(s.stats.step_seconds == plain.stats.step_seconds + 0.5);  // after rank 0's last B
  for (const auto& r : s.stats.ranks) CHECK(r.grad_sync_seconds == 0.5);
  CHECK(s.stats.bubble_seconds == plain.stats.bubble_seconds);  // table: (PP-1)(F+B)
}

TEST_CASE("shipped training scenarios: simulate agrees with step within 5% (step) and 10% (bubble)") {
  const std::string name = GENERATE("deepseek_v3_train.toml", "mhc_27b_h100.toml", "llama3_70b_gqa.toml");
  const auto s = shipped(name);
  const auto sim = simulate(s);
  test::check_invariants(sim);
  check_terms_add_up(sim);
  const auto v = versus_step(s, sim);
  REQUIRE(v.rows.size() == static_cast<size_t>(kRefinements));
  INFO(name << ": simulated " << v.simulated().step_seconds() << " s vs analytic " << v.analytic.step_seconds()
            << " s; bubble " << v.simulated().bubble_seconds << " vs " << v.analytic.bubble_seconds);
  CHECK_THAT(v.simulated().step_seconds(), WithinRel(sim.stats.step_seconds, 1e-12));  // the terms add up
  CHECK_THAT(v.analytic.step_seconds(), WithinRel(cost::step_estimate(s).step_seconds, 1e-12));
  // Issue 15's acceptance: the simulated step within 5% of step, the bubble within 10%. (The
  // DualPipes' README formula missed DeepSeek-V3's bubble by -28.5%, 837 vs 599 ms: `step` now
  // reads it off the slot-level timeline, cost_models/src/step.cpp.)
  CHECK(v.within_bounds());
  CHECK(std::abs(v.step_ratio() - 1) <= kStepTolerance);
  CHECK(std::abs(v.bubble_ratio() - 1) <= kBubbleTolerance);
  // Under the analytic model's assumptions the simulator reproduces step's compute, exposure
  // and gradient sync; what is left is the op-level placement against the slot-level timeline.
  const auto& base = v.rows.front().terms;
  CHECK_THAT(base.compute_seconds, WithinRel(v.analytic.compute_seconds, 1e-3));
  CHECK_THAT(base.exposed_comm_seconds, WithinAbs(v.analytic.exposed_comm_seconds, 0.01 * v.analytic.step_seconds()));
  CHECK_THAT(base.grad_sync_seconds, WithinRel(v.analytic.grad_sync_seconds, 1e-9));
}

// Memory prices each rank's activations as the simulator keeps them: every chunk at the middle
// stage's bytes, and on the rank(s) holding the last stage one chunk at its own (its head's fp32
// logits and the MTP module: 5.5 GiB per micro-batch of DeepSeek-V3 against 2.4 GiB), whose
// backward follows its forward. A probe found `memory` at 40.24 GiB of activations for
// DualPipe's rank 0 where the simulator kept 38.47 (the last stage's one layer, no head).
TEST_CASE("memory's activations per rank are the simulator's peaks, every schedule and rank") {
  const std::vector<std::vector<scenarios::Override>> layouts = {
      {},
      {{"parallel.schedule", "dualpipev"}, {"parallel.pp", "8"}},
      {{"parallel.schedule", "1f1b"}},
      {{"parallel.schedule", "zb1p"}},
      {{"parallel.schedule", "interleaved"},
       {"parallel.virtual_stages", "2"},
       {"parallel.pp", "8"},
       {"parallel.extra_stage_layers", "3"}},
      {{"parallel.schedule", "interleaved"},
       {"parallel.virtual_stages", "2"},
       {"parallel.pp", "8"},
       {"parallel.extra_stage_layers", "3"},
       {"parallel.combined_1f1b", "true"}}};
  std::vector<Scenario> cases;
  for (const auto& set : layouts) cases.push_back(shipped("deepseek_v3_train.toml", set));
  // Dense, interleaved PP 4 x 5, the head's logits over 128K vocabulary on the last stage.
  cases.push_back(shipped("llama3_70b_gqa.toml"));
  cases.push_back(shipped("mhc_27b_h100.toml"));
  for (const auto& s : cases) {
    const auto sim = simulate(s);
    const auto memory = cost::training_memory_per_rank(s);
    REQUIRE(memory.size() == sim.stats.ranks.size());
    for (size_t r = 0; r < memory.size(); ++r) {
      INFO(to_string(s.parallel.schedule) << (s.parallel.combined_1f1b ? " combined" : "") << " rank " << r);
      CHECK(memory[r].activation_chunks == sim.stats.ranks[r].peak_activation_chunks);
      CHECK_THAT(memory[r].activation_bytes, WithinRel(sim.stats.ranks[r].peak_activation_bytes, 1e-9));
    }
  }
}

TEST_CASE("no bubble against no bubble agrees: DualPipe at PP 2 and a one-stage pipeline") {
  // Their timelines leave rounding where the bubble is (5.6e-16 s), which read as +inf %.
  for (const auto& set : std::vector<std::vector<scenarios::Override>>{
           {{"parallel.pp", "2"}},
           {{"parallel.pp", "1"}, {"parallel.schedule", "1f1b"}, {"parallel.extra_stage_layers", "0"}}}) {
    const auto s = shipped("mhc_27b_h100.toml", set);
    const auto v = versus_step(s, simulate(s));
    INFO("pp " << s.parallel.pp << ": bubble " << v.simulated().bubble_seconds << " vs " << v.analytic.bubble_seconds);
    CHECK(v.analytic.bubble_seconds < 1e-9 * v.analytic.step_seconds());
    CHECK(v.bubble_ratio() == 1.0);
    CHECK(v.within_bounds());
  }
}

TEST_CASE("parallel.overlap moves the simulated step as it moves step") {
  const std::string name = GENERATE("deepseek_v3_train.toml", "mhc_27b_h100.toml", "llama3_70b_gqa.toml");
  auto at = [&](const char* overlap) {
    const auto s = shipped(name, {{"parallel.overlap", overlap}});
    const auto sim = simulate(s);
    return versus_step(s, sim);
  };
  const auto none = at("0"), all = at("1");
  const double analytic = none.analytic.step_seconds() - all.analytic.step_seconds();
  const double simulated = none.simulated().step_seconds() - all.simulated().step_seconds();
  INFO(name << ": step moves " << analytic << " s, simulate " << simulated << " s");
  REQUIRE(analytic > 0);
  // Overlap moves the serialised share of every all-to-all, what hides behind F&B partners and
  // the gradient sync: step and simulate move alike (within 10%; the bubble formula and the
  // timeline split the move between idle and exposed time a little differently).
  CHECK_THAT(simulated, WithinRel(analytic, 0.10));
}

// A probe's grid found 1F1B, ZB-H1 and interleaved 1F1B with MoE up to 33% apart at overlap > 0:
// `step` scaled their lone fill and drain slots' all-to-alls by (1 - overlap), the simulator
// exposed them whole (and let all-to-alls share the link at partial overlap). Both now price a
// lone slot's all-to-alls whole, so only the gradient sync moves with the overlap.
TEST_CASE("the 1F1B family on DeepSeek-V3: simulate agrees with step at every overlap") {
  const char* overlap = GENERATE("0", "0.5", "0.8", "1");
  for (const auto& set : std::vector<std::vector<scenarios::Override>>{
           {{"parallel.schedule", "\"1f1b\""}},
           {{"parallel.schedule", "\"zb1p\""}, {"parallel.micro_batches", "16"}},
           {{"parallel.schedule", "\"interleaved\""},
            {"parallel.pp", "4"},
            {"parallel.virtual_stages", "2"},
            {"parallel.micro_batches", "16"}}}) {
    auto with = set;
    with.push_back({"parallel.overlap", overlap});
    const auto s = shipped("deepseek_v3_train.toml", with);
    const auto v = versus_step(s, simulate(s));
    INFO(to_string(s.parallel.schedule) << " at overlap " << overlap << ": simulated " << v.simulated().step_seconds()
                                        << " s vs " << v.analytic.step_seconds() << " s; bubble "
                                        << v.simulated().bubble_seconds << " vs " << v.analytic.bubble_seconds);
    CHECK(std::abs(v.step_ratio() - 1) <= 0.02);
    CHECK(std::abs(v.bubble_ratio() - 1) <= 0.05);
  }
}
