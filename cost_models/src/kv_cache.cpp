#include "mhcsim/cost/kv_cache.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "mhcsim/cost/kernel_bytes.h"
#include "mhcsim/cost/memory.h"
#include "as_double.h"
#include "check.h"

namespace mhcsim::cost {

namespace {
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
  f.bytes_per_sequence =
      kv_bytes_per_sequence(s.model, s.precision.kv_cache, context, s.workload.kv_block_tokens) / kv_shards(s);
  f.sequences = static_cast<int64_t>(std::floor(f.kv_budget_bytes / f.bytes_per_sequence));
  return f;
}

namespace {
ModelSpec with_attention(ModelSpec m, AttentionKind kind) {
  if (m.attention == AttentionKind::MLA) m.head_dim = (m.qk_nope_head_dim + m.qk_rope_head_dim + m.v_head_dim) / 2;
  if (kind == AttentionKind::MLA && m.kv_lora_rank == 0) {
    m.kv_lora_rank = 512;
    m.qk_rope_head_dim = 64;
    m.qk_nope_head_dim = m.v_head_dim = m.head_dim;
  }
  if (kind == AttentionKind::GQA && m.attention != AttentionKind::GQA) m.kv_heads = std::min<int64_t>(8, m.heads);
  m.attention = kind;
  return m;
}

std::string shape_of(const ModelSpec& m) {
  switch (m.attention) {
    case AttentionKind::MLA:
      return fmt::format("latent {} + RoPE {}", m.kv_lora_rank, m.qk_rope_head_dim);
    case AttentionKind::GQA:
      return fmt::format("{} KV heads x {}", m.kv_heads, m.head_dim);
    case AttentionKind::MQA:
      return fmt::format("1 KV head x {}", m.head_dim);
    case AttentionKind::MHA:
      return fmt::format("{} KV heads x {}", m.heads, m.head_dim);
  }
  return "";
}
}  // namespace

std::vector<KvLayout> kv_layouts(const ModelSpec& m) {
  std::vector<KvLayout> out{{m.attention, true, shape_of(m), m}};
  for (const auto kind : {AttentionKind::MLA, AttentionKind::GQA, AttentionKind::MQA, AttentionKind::MHA}) {
    if (kind == m.attention) continue;
    const ModelSpec v = with_attention(m, kind);
    out.push_back({kind, false, shape_of(v), v});
  }
  return out;
}

}  // namespace mhcsim::cost
