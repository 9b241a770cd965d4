#pragma once
// `a2a`: MoE all-to-all bytes per token and MoE layer (NVLink vs IB) and alpha-beta time for
// one micro-batch (training) or decode batch (serving).
#include <cstdint>
#include <vector>

#include "mhcsim/reports/table.h"
#include "mhcsim/specs.h"

namespace mhcsim::api {

// `tokens` per GPU per MoE layer; 0 takes one micro-batch on a CP rank over TP (training, each
// TP rank dispatching its share as step prices it, the mean rank: step's chunk also scales it by
// parallel.expert_imbalance), or one micro-batch of a serving iteration over TP (a decode
// batch's sequences, a prefill batch's prompt tokens).
std::vector<reports::Quantity> a2a_quantities(const Scenario& s, int64_t tokens = 0);

}  // namespace mhcsim::api
