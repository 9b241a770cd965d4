#include "mhcsim/api/kv.h"

#include <algorithm>
#include <string>

#include "mhcsim/cost/kv_cache.h"
#include "mhcsim/units.h"

namespace mhcsim::api {

namespace {
// The same model with another attention kind: MHA/GQA/MQA use the model's head_dim (for MLA
// models the mean of the K and V head widths, so MHA is DeepSeek-V3's "MHA-shaped" cache);
// GQA keeps the model's groups or uses 8; MLA uses the model's d_c and d_R, or DeepSeek-V3's
// 512 + 64 for non-MLA models.
ModelSpec with_attention(ModelSpec m, AttentionKind kind) {
  if (m.attention == AttentionKind::MLA)
    m.head_dim = (m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim) / 2;
  if (kind == AttentionKind::MLA && m.kv_lora_rank == 0) {
    m.kv_lora_rank = 512;
    m.qk_rope_head_dim = 64;
    m.qk_nope_head_dim = m.v_head_dim = m.head_dim;
  }
  if (kind == AttentionKind::GQA && m.attention != AttentionKind::GQA) m.kv_heads = std::min<int64_t>(8, m.heads);
  m.attention = kind;
  return m;
}
}  // namespace

reports::Table kv_table(const Scenario& s, int64_t context_tokens, int64_t batch_seqs) {
  const int64_t context = context_tokens > 0 ? context_tokens : s.workload.context_len;
  const int64_t batch = batch_seqs > 0 ? batch_seqs : s.workload.batch_seqs;
  const DType dtype = s.precision.kv_cache;
  reports::Table t("KV cache of " + s.model.name + " at " + std::to_string(context) + " tokens x " +
                       std::to_string(batch) + " sequences, " + std::string(to_string(dtype)) + ", " +
                       std::to_string(s.workload.kv_block_tokens) + "-token pages",
                   {{"attention", "attention"},
                    {"elems_per_token_layer", "elems/token/layer", 0},
                    {"bytes_per_token", "per token (KB)", 2, 1e-3},
                    {"bytes_per_sequence", "per sequence (MiB)", 1, 1.0 / kMiB},
                    {"bytes_per_batch", "batch (GiB)", 2, 1.0 / kGiB},
                    {"vs_model", "vs model (x)", 2},
                    {"sequences_per_gpu", "seqs/GPU"}});
  const double own = cost::kv_bytes_per_token(s.model, dtype);
  for (const auto kind : {s.model.attention, AttentionKind::MLA, AttentionKind::GQA, AttentionKind::MQA,
                          AttentionKind::MHA}) {
    if (kind == s.model.attention && t.rows().size() > 0) continue;  // listed first already
    Scenario v = s;
    v.model = with_attention(s.model, kind);
    const double per_token = cost::kv_bytes_per_token(v.model, dtype);
    const double per_seq = cost::kv_bytes_per_sequence(v.model, dtype, context, s.workload.kv_block_tokens);
    t.add_row({std::string(to_string(kind)) + (kind == s.model.attention ? " (model)" : ""),
               cost::kv_elems_per_token_per_layer(v.model), per_token, per_seq,
               per_seq * static_cast<double>(batch), per_token / own, cost::kv_fit(v, context).sequences});
  }
  return t;
}

}  // namespace mhcsim::api
