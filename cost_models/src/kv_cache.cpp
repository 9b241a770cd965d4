#include "mhcsim/cost/kv_cache.h"

#include <algorithm>
#include <cmath>

#include "mhcsim/cost/kernel_bytes.h"
#include "mhcsim/cost/memory.h"
#include "check.h"

namespace mhcsim::cost {

namespace {
double d(int64_t v) { return static_cast<double>(v); }
// PP splits the layers; TP splits KV heads (MLA's single latent head is replicated).
double kv_shards(const Scenario& s) {
  const auto& m = s.model;
  const int64_t groups = m.attention == AttentionKind::MHA   ? m.heads
                         : m.attention == AttentionKind::GQA ? m.kv_heads
                                                             : 1;
  return d(s.parallel.pp) * d(std::max<int64_t>(1, std::min(s.parallel.tp, groups)));
}
}  // namespace

double kv_elems_per_token_per_layer(const ModelSpec& m) {
  switch (m.attention) {
    case AttentionKind::MHA:
      check(m.heads >= 1 && m.head_dim >= 1, "model.head_dim", "MHA needs heads and head_dim >= 1");
      return 2.0 * d(m.heads) * d(m.head_dim);
    case AttentionKind::GQA:
      check(m.kv_heads >= 1 && m.head_dim >= 1, "model.kv_heads", "GQA needs kv_heads and head_dim >= 1");
      return 2.0 * d(m.kv_heads) * d(m.head_dim);
    case AttentionKind::MQA:
      check(m.head_dim >= 1, "model.head_dim", "MQA needs head_dim >= 1");
      return 2.0 * d(m.head_dim);
    case AttentionKind::MLA:
      check(m.kv_lora_rank >= 1, "model.kv_lora_rank", "MLA needs d_c >= 1");
      return d(m.kv_lora_rank + m.qk_rope_head_dim);
  }
  return 0;
}

double kv_bytes_per_token_per_layer(const ModelSpec& m, DType dtype) {
  const double elems = kv_elems_per_token_per_layer(m);
  if (m.attention == AttentionKind::MLA) return mla_cache_row_bytes(m.kv_lora_rank, m.qk_rope_head_dim, dtype);
  return elems * bytes_per_element(dtype);
}

double kv_bytes_per_token(const ModelSpec& m, DType dtype) {
  check(m.layers >= 1, "model.layers", "must be >= 1");
  return d(m.layers) * kv_bytes_per_token_per_layer(m, dtype);
}

double kv_bytes_per_sequence(const ModelSpec& m, DType dtype, int64_t context, int64_t block) {
  check(context >= 1, "workload.context_len", "must be >= 1");
  check(block >= 0, "workload.kv_block_tokens", "must be >= 0");
  const int64_t tokens = block > 0 ? (context + block - 1) / block * block : context;
  return d(tokens) * kv_bytes_per_token(m, dtype);
}

double kv_bytes_per_token_per_gpu(const Scenario& s) {
  return kv_bytes_per_token(s.model, s.precision.kv_cache) / kv_shards(s);
}

KvFit kv_fit(const Scenario& s, int64_t context) {
  KvFit f;
  f.hbm_bytes = s.hardware.gpu.hbm_bytes;
  check(f.hbm_bytes > 0, "hardware.gpu.hbm_bytes", "must be > 0");
  f.weight_bytes = weight_bytes_per_gpu(s);
  f.reserve_bytes = kServeActivationReserveFraction * f.hbm_bytes;
  f.kv_budget_bytes = std::max(0.0, f.hbm_bytes - f.weight_bytes - f.reserve_bytes);
  f.bytes_per_sequence = kv_bytes_per_sequence(s.model, s.precision.kv_cache, context,
                                               s.workload.kv_block_tokens) /
                         kv_shards(s);
  f.sequences = static_cast<int64_t>(std::floor(f.kv_budget_bytes / f.bytes_per_sequence));
  return f;
}

}  // namespace mhcsim::cost
