#pragma once
// Memory-bound traffic per token over the whole model (forward, besides mHC) for the serving
// roofline (training prices these op by op, layer_ops.h). Internal to mhcsim_cost.
#include "mhcsim/specs.h"

namespace mhcsim::cost {

// The norms and, in MoE layers, the permute and combine of the dispatched tokens.
double elementwise_bytes_per_token(const Scenario& s);

}  // namespace mhcsim::cost
