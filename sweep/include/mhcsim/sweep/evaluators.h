#pragma once
// The two ways a sweep prices a point, with one metric list so their outputs line up:
// the analytic model (cost::step_estimate: pipeline bubble by formula) and the simulator
// (sim::simulate: the schedule run op by op on the cost model's prices). Training points
// that do not fit in HBM, and serving points whose batch's KV cache does not fit, are
// infeasible with the numbers that say by how much.
#include "mhcsim/sweep/evaluator.h"

namespace mhcsim::sweep {

Evaluator analytic_evaluator();
Evaluator simulated_evaluator();

}  // namespace mhcsim::sweep
