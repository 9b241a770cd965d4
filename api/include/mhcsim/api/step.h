#pragma once
// `step`: one step of the scenario's workload. Training: the roofline step composition
// (cost::step_estimate); serving: the decode or prefill step (cost::serve_estimate).
#include <string>
#include <vector>

#include "mhcsim/reports/table.h"
#include "mhcsim/specs.h"

namespace mhcsim::api {

// The training or the serving estimate, by the scenario's workload mode.
std::vector<reports::Quantity> step_quantities(const Scenario& s);
// "training step estimate: <name>" or "decode step estimate: <name>".
std::string step_title(const Scenario& s);
// One layer's operations for one micro-batch on one GPU, each priced alone (`step --ops`);
// MoE layer when the model has experts, else dense.
reports::Table step_ops_table(const Scenario& s);

}  // namespace mhcsim::api
