#include "mhcsim/sim/step_terms.h"

namespace mhcsim::sim {

StepTerms analytic_step_terms(const cost::StepEstimate& e, const ParallelSpec& p) {
  const double chunks = static_cast<double>(p.micro_batches * stages_per_rank(p.schedule, p.virtual_stages));
  StepTerms t;
  t.exposed_comm_seconds = chunks * e.exposed_a2a_seconds;
  t.compute_seconds = e.busy_seconds - t.exposed_comm_seconds;
  t.grad_sync_seconds = e.dp_sync_seconds;
  t.bubble_seconds = e.bubble_seconds;
  return t;
}

}  // namespace mhcsim::sim
