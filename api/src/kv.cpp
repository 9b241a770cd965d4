#include "mhcsim/api/kv.h"

#include <string>

#include "mhcsim/cost/kv_cache.h"
#include "mhcsim/units.h"

namespace mhcsim::api {

reports::Table kv_table(const Scenario& s, int64_t context_tokens, int64_t batch_seqs) {
  const int64_t context = context_tokens > 0 ? context_tokens : s.workload.context_len;
  const int64_t batch = batch_seqs > 0 ? batch_seqs : s.workload.batch_seqs;
  const DType dtype = s.precision.kv_cache;
  reports::Table t("KV cache of " + s.model.name + " at " + std::to_string(context) + " tokens x " +
                       std::to_string(batch) + " sequences, " + std::string(to_string(dtype)) + ", " +
                       std::to_string(s.workload.kv_block_tokens) + "-token pages",
                   {{"attention", "attention"},
                    {"shape", "cached per token and layer"},
                    {"elems_per_token_layer", "elems/token/layer", 0},
                    {"bytes_per_token", "per token (KiB)", 2, 1.0 / kKiB},
                    {"bytes_per_sequence", "per sequence (MiB)", 1, 1.0 / kMiB},
                    {"bytes_per_batch", "batch (GiB)", 2, 1.0 / kGiB},
                    {"vs_model", "vs model (x)", 2},
                    {"sequences_per_replica", "seqs/replica"}});
  const double own = cost::kv_bytes_per_token(s.model, dtype);
  for (const auto& layout : cost::kv_layouts(s.model)) {
    Scenario v = s;
    v.model = layout.model;
    const double per_token = cost::kv_bytes_per_token(v.model, dtype);
    const double per_seq = cost::kv_bytes_per_sequence(v.model, dtype, context, s.workload.kv_block_tokens);
    t.add_row({std::string(to_string(layout.attention)) + (layout.is_model ? " (model)" : ""), layout.shape,
               cost::kv_elems_per_token_per_layer(v.model), per_token, per_seq, per_seq * static_cast<double>(batch),
               per_token / own, cost::kv_fit(v, context).sequences});
  }
  return t;
}

}  // namespace mhcsim::api
