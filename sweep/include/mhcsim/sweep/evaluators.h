#pragma once
// The two ways a sweep prices a point, with one metric list so their outputs line up:
// the analytic model (cost::step_estimate: pipeline bubble by formula) and the simulator
// (sim::simulate: the schedule run op by op on the cost model's prices). Training points
// that do not fit in HBM, and serving points whose batch's KV cache does not fit, are
// infeasible with the numbers that say by how much.
#include "mhcsim/sim/schedule.h"
#include "mhcsim/sweep/evaluator.h"

namespace mhcsim::sweep {

Evaluator analytic_evaluator();

// Sequences per optimizer step of a validated training scenario: DP x micro_batch_seqs x
// micro-batches (what workload.global_batch_seqs fixes when given).
int64_t training_global_batch_seqs(const Scenario& s);
// Points whose simulation exceeds `max_sim_ops` (sim::check_op_budget) are infeasible with
// that reason, found before anything is allocated.
Evaluator simulated_evaluator(int64_t max_sim_ops = sim::kDefaultMaxSimOps);

}  // namespace mhcsim::sweep
