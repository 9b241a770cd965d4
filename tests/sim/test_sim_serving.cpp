// `simulate` on a serving scenario (issue 14, item 4): forward passes only, the batch split into
// micro-batches instead of multiplied by them, two overlapped micro-batches interleaved layer by
// layer, and a pipeline's steady state against `step`'s iteration.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "mhcsim/cost/serve.h"
#include "mhcsim/error.h"
#include "mhcsim/sim/serving.h"
#include "mhcsim/sim/versus_step.h"
#include "shipped.h"

using namespace mhcsim;
using namespace mhcsim::sim;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using mhcsim::sim::test::shipped;

namespace {

// Two micro-batches of attention 1 s, MLP 1 s, dispatch and combine 0.5 s each, interleaved
// over `rounds` layers on one rank; returns the iteration.
double paired_iteration(int32_t rounds, double overlap) {
  PhasePrices p;
  p.attn_forward_seconds = p.mlp_forward_seconds = 1;
  p.dispatch_seconds = p.combine_seconds = 0.5;
  p.a2a_overlap = overlap;
  p.paired_rounds = rounds;
  const Program prog = schedules::forward_program(1, 2, 1, true);
  const OpGraph g = build_op_graph(prog, p);
  return summarize(g, run(g)).step_seconds;
}

bool has_backward(const OpGraph& g) {
  for (const auto& l : g.label)
    if (l.unit == UnitKind::Backward || l.unit == UnitKind::BackwardInput || l.unit == UnitKind::Weight) return true;
  return false;
}

}  // namespace

TEST_CASE("forward_program: every micro-batch of every iteration once per stage, in order, paired in twos") {
  const Program pipe = schedules::forward_program(4, 4, 3, false);
  CHECK(pipe.forward_only);
  CHECK(pipe.feedback == 4);
  CHECK(pipe.layout.micro_batches == 12);
  for (int32_t r = 0; r < 4; ++r) {
    REQUIRE(pipe.begin[static_cast<size_t>(r) + 1] - pipe.begin[static_cast<size_t>(r)] == 12);
    for (int32_t i = 0; i < 12; ++i) {
      const auto& slot = pipe.slots[static_cast<size_t>(pipe.begin[static_cast<size_t>(r)] + i)];
      CHECK(slot.kind == SlotKind::Forward);
      CHECK(slot.mb == i);
      CHECK(slot.hop == r);
    }
  }
  const Program pair = schedules::forward_program(1, 2, 3, true);
  REQUIRE(pair.slots.size() == 3);
  for (const auto& slot : pair.slots) CHECK(slot.kind == SlotKind::ForwardForward);
  CHECK(pair.slots[2].mb == 4);
  CHECK(pair.slots[2].mb2 == 5);
  CHECK_THROWS(schedules::forward_program(2, 2, 1, true));  // pairs are one rank's
}

TEST_CASE("Two overlapped forwards: each all-to-all hides behind the other's compute, layer by layer") {
  // Nothing hidden: 2 x (1 + 1) compute + 2 x (0.5 + 0.5) all-to-all.
  CHECK_THAT(paired_iteration(10, 0.0), WithinAbs(6.0, 1e-9));
  // All hidden but the last layer's last combine (0.5 / rounds): A0 D0|A1 D1|M0 C0|M1 C1|A0' ...
  for (int32_t rounds : {1, 4, 58}) {
    INFO("rounds " << rounds);
    CHECK_THAT(paired_iteration(rounds, 1.0), WithinAbs(4.0 + 0.5 / rounds, 1e-9));
  }
}

TEST_CASE("simulate on the shipped serving scenario: forward only, the batch split in two, as step prices it") {
  const Scenario s = shipped("deepseek_v3_serve.toml");
  const auto plan = serving_plan(s);
  CHECK(plan.paired);
  CHECK(plan.micro_batches == 2);
  CHECK(plan.iterations == 1);
  CHECK(plan.paired_rounds == s.model.moe_layers());
  const Simulation sim = simulate(s);
  CHECK_FALSE(has_backward(sim.graph));
  CHECK(sim.iterations == 1);
  // Split, not multiplied: the compute simulated is `step`'s compute for the whole batch.
  const StepTerms analytic = analytic_serving_terms(s);
  CHECK_THAT(sim.iteration.compute_seconds, WithinRel(analytic.compute_seconds, 1e-9));
  const auto v = versus_step(s, sim);
  CHECK(v.within_bounds());
  CHECK_THAT(v.simulated().step_seconds(), WithinRel(cost::serve_estimate(s).step_seconds, kStepTolerance));
  // Without overlap the batch runs whole (nothing to hide), on both sides alike.
  const Scenario none = shipped("deepseek_v3_serve.toml", {{"parallel.overlap", "0"}});
  CHECK_FALSE(serving_plan(none).paired);
  CHECK(serving_plan(none).micro_batches == 1);
  CHECK_THAT(simulate(none).iteration.step_seconds(), WithinRel(cost::serve_estimate(none).step_seconds, 1e-9));
}

TEST_CASE("simulate on a pipelined serving scenario: the last iteration is the steady state step prices") {
  const Scenario s =
      shipped("llama3_70b_gqa.toml", {{"workload.mode", "serve"}, {"parallel.pp", "4"}, {"workload.batch_seqs", "64"}});
  const auto plan = serving_plan(s);
  CHECK_FALSE(plan.paired);
  CHECK(plan.micro_batches == 4);
  CHECK(plan.iterations == kPipelinedIterations);
  const Simulation sim = simulate(s);
  CHECK_FALSE(has_backward(sim.graph));
  const double step = cost::serve_estimate(s).step_seconds;
  CHECK_THAT(sim.iteration.step_seconds(), WithinRel(step, 0.01));
  // From an empty pipeline the first iteration takes longer than the steady state.
  CHECK(sim.stats.step_seconds > kPipelinedIterations * sim.iteration.step_seconds() * 1.05);
}

TEST_CASE("simulate on a pipelined prefill: the micro-batches cycle through the stages as step prices them") {
  // Each micro-batch's next iteration starts when it leaves the last stage: an iteration is pp
  // stage times and pp - 1 sends. The ranks wait for the micro-batch in transit, which `step`
  // counts as exposed sends and the timeline as bubble: only the iteration is compared.
  const Scenario s = shipped(
      "llama3_70b_gqa.toml",
      {{"workload.mode", "serve"}, {"workload.phase", "prefill"}, {"parallel.pp", "4"}, {"workload.batch_seqs", "4"}});
  const Simulation sim = simulate(s);
  const double step = cost::serve_estimate(s).step_seconds;
  CHECK_THAT(sim.iteration.step_seconds(), WithinRel(step, 0.005));
  const auto v = versus_step(s, sim);
  CHECK(v.within_bounds());
  // The pacing rank is the one idling least in the last iteration, whatever the span says.
  CHECK(sim.iteration.bubble_seconds <= sim.stats.ranks.back().terms().bubble_seconds);
  CHECK(sim.iteration.compute_seconds <= analytic_serving_terms(s).compute_seconds * (1 + 1e-12));
}

TEST_CASE("simulate on a serving scenario: the op budget counts its own program and names parallel.pp") {
  const Scenario s = shipped("deepseek_v3_serve.toml");
  const auto plan = serving_plan(s);
  // An upper bound on what the run creates: 12 ops per round of the pair, no slack beyond it.
  CHECK(estimated_ops(plan) >= simulate(s).stats.ops);
  CHECK(estimated_ops(plan) == int64_t{12} * plan.paired_rounds);
  CHECK_THROWS_AS(check_op_budget(s, 10), InputError);
  CHECK_NOTHROW(check_op_budget(s, kDefaultMaxSimOps));
  try {
    check_op_budget(s, 10);
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("parallel.pp") != std::string::npos);
    CHECK(std::string(e.what()).find("interleaved over 58 MoE layers") != std::string::npos);
  }
}
