#pragma once
// `kv`: KV cache per token and per sequence for the scenario's attention next to the other
// kinds at the same layers and heads (DeepSeek-V2's comparison), and sequences per GPU.
#include <cstdint>

#include "mhcsim/reports/table.h"
#include "mhcsim/specs.h"

namespace mhcsim::api {

// One row per attention kind, the model's own first. `context_tokens` and `batch_seqs` of 0
// take workload.context_len and workload.batch_seqs.
reports::Table kv_table(const Scenario& s, int64_t context_tokens = 0, int64_t batch_seqs = 0);

}  // namespace mhcsim::api
