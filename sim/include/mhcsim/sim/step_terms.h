#pragma once
// The one definition of a training step's terms (sim/README.md), so that `step` (the pipeline
// formulas over cost::StepEstimate) and `simulate` (a timeline) report the same quantities.
// On one pipeline rank every instant of the step is exactly one of
//   compute       a compute stream runs: forward, backward, weight gradients, and what the cost
//                 model prices inside the layers (TP collectives, recompute, the serialised
//                 part of an all-to-all counts as communication, not compute);
//   exposed comm  an EP all-to-all or a PP transfer runs and no compute does;
//   grad sync     the exposed DP gradient sync after the rank's last op;
//   bubble        nothing runs: the rank waits for its pipeline neighbours;
// so compute + exposed comm + grad sync + bubble = step on every rank. The step's terms are
// those of the rank that paces the pipeline, the one with the least bubble (the formulas price
// every rank like the slowest, so there it is every rank).
#include "mhcsim/cost/step.h"
#include "mhcsim/specs.h"

namespace mhcsim::sim {

struct StepTerms {
  double compute_seconds = 0;
  double exposed_comm_seconds = 0;
  double grad_sync_seconds = 0;
  double bubble_seconds = 0;

  double step_seconds() const { return compute_seconds + exposed_comm_seconds + grad_sync_seconds + bubble_seconds; }
  double bubble_fraction() const { return step_seconds() > 0 ? bubble_seconds / step_seconds() : 0; }
  // The bubble's share of the pipeline's part of the step (without the gradient sync after
  // it): what cost::pipeline_bubble_fraction gives, bubble / (bubble + busy).
  double pipeline_bubble_fraction() const {
    const double pipeline = step_seconds() - grad_sync_seconds;
    return pipeline > 0 ? bubble_seconds / pipeline : 0;
  }
};

// cost::StepEstimate in these terms: busy_seconds holds every chunk's compute and its exposed
// all-to-all (a lone slot's whole, an F&B pair's serialised share and what outlasts the
// partner's compute); the bubble is the schedule's formula over phase times with the lone
// slots' all-to-alls whole, or the DualPipes' slot-level timeline.
StepTerms analytic_step_terms(const cost::StepEstimate& e);

}  // namespace mhcsim::sim
