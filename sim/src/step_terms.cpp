#include "mhcsim/sim/step_terms.h"

namespace mhcsim::sim {

StepTerms analytic_step_terms(const cost::StepEstimate& e) {
  StepTerms t;
  t.compute_seconds = e.busy_seconds - e.exposed_a2a_per_rank_seconds;
  t.exposed_comm_seconds = e.exposed_a2a_per_rank_seconds + e.pp_exposed_seconds;
  t.grad_sync_seconds = e.dp_sync_seconds;
  t.bubble_seconds = e.bubble_seconds;
  return t;
}

}  // namespace mhcsim::sim
