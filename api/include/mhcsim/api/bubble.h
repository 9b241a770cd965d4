#pragma once
// `bubble`: every pipeline schedule at the scenario's PP and micro-batches, priced by the cost
// model (DualPipe README table). A schedule that cannot run the shape stays a row with its
// reason (infeasibility is a value, Timeloop's EvalStatus habit).
#include "mhcsim/reports/table.h"
#include "mhcsim/specs.h"

namespace mhcsim::api {

reports::Table bubble_table(const Scenario& s);

}  // namespace mhcsim::api
