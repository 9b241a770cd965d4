#pragma once
// `memory`: memory per GPU. Training: weights, gradients, optimizer states (ZeRO) and
// activations; serving: weights and the KV cache budget.
#include <vector>

#include "mhcsim/reports/table.h"
#include "mhcsim/specs.h"

namespace mhcsim::api {

std::vector<reports::Quantity> memory_quantities(const Scenario& s);

}  // namespace mhcsim::api
