// simulate on a serving scenario (serving.h): its plan, its prices, and the last iteration.
#include "mhcsim/sim/serving.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "mhcsim/cost/serve.h"
#include "mhcsim/cost/serving_step.h"
#include "mhcsim/error.h"

namespace mhcsim::sim {
namespace {

cost::IterationTime iteration_time(const Scenario& s) {
  return cost::ServingStepModel::time_once(s, cost::workload_batch(s));
}

Simulation run_iterations(const ServingPlan& plan, const StagePrices& prices, int32_t iterations) {
  Simulation sim;
  sim.program = schedules::forward_program(plan.ranks, plan.micro_batches, iterations, plan.paired);
  sim.graph = build_op_graph(sim.program, prices);
  sim.timeline = run(sim.graph);
  sim.stats = summarize(sim.graph, sim.timeline);
  sim.iterations = iterations;
  return sim;
}

// Each term's growth from one more iteration; none shrinks, so what is below zero is the
// rounding of two sums (-1e-16 s of bubble), not time.
StepTerms minus(const StepTerms& a, const StepTerms& b) {
  const auto grew = [](double x, double y) { return std::max(0.0, x - y); };
  return {grew(a.compute_seconds, b.compute_seconds), grew(a.exposed_comm_seconds, b.exposed_comm_seconds),
          grew(a.grad_sync_seconds, b.grad_sync_seconds), grew(a.bubble_seconds, b.bubble_seconds)};
}

ServingPlan plan_from(const Scenario& s, const cost::IterationTime& it) {
  ServingPlan plan;
  plan.ranks = static_cast<int32_t>(s.parallel.pp);
  plan.micro_batches = static_cast<int32_t>(it.micro_batches);
  plan.iterations = plan.ranks > 1 ? kPipelinedIterations : 1;
  plan.paired = it.overlapped;
  plan.paired_rounds = plan.paired ? static_cast<int32_t>(std::max<int64_t>(1, s.model.moe_layers())) : 1;
  return plan;
}

StagePrices prices_from(const Scenario& s, const cost::IterationTime& it, int32_t paired_rounds) {
  const double n = static_cast<double>(it.micro_batches);
  const double attention = it.attention_seconds + it.attention_sublayer_seconds;
  PhasePrices p;
  p.attn_forward_seconds = attention / n;
  p.mlp_forward_seconds = (it.compute_seconds() - attention - it.head_seconds) / n;
  p.dispatch_seconds = it.dispatch_seconds / n;
  p.combine_seconds = (it.a2a_seconds - it.dispatch_seconds) / n;
  p.a2a_overlap = s.parallel.overlap;
  // One send per stage boundary and micro-batch (the iteration has n - 1 per micro-batch slot).
  p.pp_send_seconds = n > 1 ? it.pp_send_seconds / (n - 1) : 0.0;
  p.paired_rounds = paired_rounds;
  PhasePrices last = p;
  last.mlp_forward_seconds += it.head_seconds / n;
  return {p, last, 0.0};
}

}  // namespace

ServingPlan serving_plan(const Scenario& s) { return plan_from(s, iteration_time(s)); }

int64_t estimated_ops(const ServingPlan& plan) {
  // A pair's round is two forwards of attention, dispatch, MLP, combine and the two all-to-alls'
  // serialised parts: 12 ops; a lone forward at most those 6, mHC's F_post,res and a stage send.
  // A pipeline is run twice (the last iteration is a difference), both held at once.
  constexpr int64_t kOpsPerRound = 12, kOpsPerForward = 8;
  const int64_t forwards = int64_t{plan.micro_batches} * plan.iterations * plan.ranks;
  const int64_t once = plan.paired ? forwards / 2 * plan.paired_rounds * kOpsPerRound : forwards * kOpsPerForward;
  return plan.iterations > 1 ? 2 * once : once;
}

std::string describe_ops(const ServingPlan& plan) {
  return fmt::format("{} stage(s) x {} micro-batch(es) x {} iteration(s){} make about {} simulated ops", plan.ranks,
                     plan.micro_batches, plan.iterations,
                     plan.paired ? fmt::format(", the pair interleaved over {} MoE layers", plan.paired_rounds) : "",
                     estimated_ops(plan));
}

StagePrices serving_stage_prices(const Scenario& s) {
  const auto it = iteration_time(s);
  return prices_from(s, it, plan_from(s, it).paired_rounds);
}

Simulation simulate_serving(const Scenario& s) {
  // The iteration model is asked once; the plan and the prices both read it.
  const auto it = iteration_time(s);
  const ServingPlan plan = plan_from(s, it);
  if (estimated_ops(plan) > kMaxSimOps)
    throw SpecError("parallel.pp",
                    fmt::format("{}, more than the simulator's 32-bit op ids allow (expected at most {})",
                                describe_ops(plan), kMaxSimOps));
  const StagePrices prices = prices_from(s, it, plan.paired_rounds);
  Simulation sim = run_iterations(plan, prices, plan.iterations);
  if (plan.iterations == 1) {
    sim.iteration = sim.stats.terms();
    return sim;
  }
  // The last iteration: each rank's terms in this run less those in a run with an iteration
  // fewer. The pacing rank is the one with the least bubble in it (the slowest stage), not over
  // the whole span, where the fill and the drain decide.
  const auto fewer = run_iterations(plan, prices, plan.iterations - 1).stats;
  for (size_t r = 0; r < sim.stats.ranks.size(); ++r) {
    const StepTerms last = minus(sim.stats.ranks[r].terms(), fewer.ranks[r].terms());
    if (r == 0 || last.bubble_seconds < sim.iteration.bubble_seconds) {
      sim.iteration = last;
      sim.stats.pacing_rank = static_cast<int32_t>(r);
    }
  }
  sim.stats.bubble_seconds = sim.stats.terms().bubble_seconds;
  return sim;
}

StepTerms analytic_serving_terms(const Scenario& s) {
  const auto it = iteration_time(s);
  return {it.compute_seconds(), it.exposed_a2a_seconds + it.pp_send_seconds, 0.0, 0.0};
}

}  // namespace mhcsim::sim
