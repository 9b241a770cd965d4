#pragma once
// The one verdict on whether a scenario fits its GPUs. A sweep keeps such points with their
// reason; step, memory, simulate and report print their result and then say "does not fit"
// with the same reason (exit code kExitInfeasible).
#include <cstdint>
#include <optional>
#include <string>

#include "mhcsim/specs.h"

namespace mhcsim::sweep {

struct Capacity {
  // Training: weights, gradients, optimizer states and activations (cost::training_memory);
  // serving: weights, the activation reserve and the batch's KV cache (cost::kv_fit).
  double memory_per_gpu_bytes = 0;
  std::optional<int64_t> kv_sequences_per_replica;  // serving only
  std::string infeasible_reason;                    // empty when it fits, else the numbers that say why
};

Capacity capacity(const Scenario& s);

}  // namespace mhcsim::sweep
