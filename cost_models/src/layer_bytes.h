#pragma once
// Memory-bound traffic per token over the whole model (forward, besides mHC), shared by the
// training chunk prices and the serving roofline. Internal to mhcsim_cost.
#include "mhcsim/specs.h"

namespace mhcsim::cost {

// The two RMSNorms of each layer read and write the hidden.
double norm_bytes_per_token(const Scenario& s);
// The norms and, in MoE layers, the permute and combine of the dispatched tokens.
double elementwise_bytes_per_token(const Scenario& s);
// SwiGLU's elementwise product: reads gate and up, writes the product, for the dense FFNs and
// every active (routed + shared) expert.
double swiglu_bytes_per_token(const Scenario& s);

}  // namespace mhcsim::cost
