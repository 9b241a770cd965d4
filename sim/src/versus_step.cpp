#include "mhcsim/sim/versus_step.h"

#include <cmath>

#include "mhcsim/cost/step.h"
#include "mhcsim/sim/serving.h"

namespace mhcsim::sim {
namespace {

struct RowText {
  const char* key;
  const char* what;
};
constexpr RowText kRows[kRefinements] = {
    {"analytic_assumptions",
     "each stage at its own price with its PP sends, all-to-alls hidden behind F&B partners, one "
     "compute stream"},
    {"mhc_stream", "+ mHC F_post,res on the high-priority stream beside the compute"},
};

}  // namespace

double VersusStep::step_ratio() const {
  const double a = analytic.step_seconds();
  return a > 0 ? simulated().step_seconds() / a : 0;
}

double VersusStep::bubble_ratio() const {
  // A bubble under a billionth of the step is the timeline's rounding (one rank, DualPipe at PP
  // 2: 5.6e-16 s): none, and none against none agrees.
  const double none = 1e-9 * analytic.step_seconds();
  const double a = analytic.bubble_seconds, s = simulated().bubble_seconds;
  if (a <= none) return s <= none ? 1 : INFINITY;
  return s / a;
}

bool VersusStep::within_bounds() const {
  // A serving pipeline's ranks wait for the micro-batch in transit, which `step` counts as its
  // stage sends: the iteration compares, its split into exposed sends and bubble does not.
  if (serving) return std::abs(step_ratio() - 1) <= kStepTolerance;
  return std::abs(step_ratio() - 1) <= kStepTolerance && std::abs(bubble_ratio() - 1) <= kBubbleTolerance;
}

StagePrices refined_prices(const StagePrices& full, Refinement upto) {
  StagePrices p = full;
  for (PhasePrices* c : {&p.chunk, &p.last_chunk}) {
    if (upto < Refinement::MhcStream) {  // inside the MLP's compute, as chunk_cost prices it
      c->mlp_forward_seconds += c->mhc_post_forward_seconds;
      c->mhc_post_forward_seconds = 0;
    }
  }
  return p;
}

VersusStep versus_step(const Scenario& scenario, const Simulation& full) {
  VersusStep v;
  if (scenario.workload.mode == WorkloadMode::Serve) {
    // Both sides price the same pieces (serving.h); the simulator places them on a timeline.
    v.serving = true;
    v.analytic = analytic_serving_terms(scenario);
    v.rows.push_back({Refinement::MhcStream, "forward_passes",
                      "the iteration's forward passes as micro-batches on a timeline, the last of the "
                      "simulated iterations",
                      full.iteration});
    return v;
  }
  v.analytic = analytic_step_terms(cost::step_estimate(scenario));
  const StagePrices prices = stage_prices(scenario);
  for (int i = 0; i < kRefinements; ++i) {
    const auto r = static_cast<Refinement>(i);
    const StepTerms terms =
        i == kRefinements - 1 ? full.stats.terms() : simulate(full.spec, refined_prices(prices, r)).stats.terms();
    v.rows.push_back({r, kRows[i].key, kRows[i].what, terms});
  }
  return v;
}

}  // namespace mhcsim::sim
