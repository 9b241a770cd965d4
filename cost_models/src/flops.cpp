#include "mhcsim/cost/flops.h"

#include "as_double.h"
#include "check.h"

namespace mhcsim::cost {

namespace {
bool is_mhc(const ModelSpec& m) { return m.residual != ResidualKind::Residual && m.mhc_n > 1; }
// Query/key and value widths per head.
double qk_head_dim(const ModelSpec& m) {
  return m.attention == AttentionKind::MLA ? d(m.qk_nope_head_dim + m.qk_rope_head_dim) : d(m.head_dim);
}
double v_head_dim(const ModelSpec& m) { return m.attention == AttentionKind::MLA ? d(m.v_head_dim) : d(m.head_dim); }
double kv_groups(const ModelSpec& m) {
  switch (m.attention) {
    case AttentionKind::MHA:
      return d(m.heads);
    case AttentionKind::MQA:
      return 1.0;
    default:
      return d(m.kv_heads);
  }
}
// Weight matrices of an FFN: SwiGLU has gate, up and down; the GeLU MLP up and down.
double ffn_matrices(const ModelSpec& m) { return m.mlp == MlpKind::GeLU ? 2.0 : 3.0; }
}  // namespace

void validate_model(const ModelSpec& m) {
  check(m.layers >= 1, "model.layers", "must be >= 1");
  check(m.hidden >= 1, "model.hidden", "must be >= 1");
  check(m.vocab >= 1, "model.vocab", "must be >= 1");
  check(m.heads >= 1, "model.heads", "must be >= 1");
  if (m.attention == AttentionKind::MLA) {
    check(m.kv_lora_rank >= 1, "model.kv_lora_rank", "MLA needs d_c >= 1");
    check(m.qk_nope_head_dim + m.qk_rope_head_dim >= 1, "model.qk_nope_head_dim",
          "MLA needs a query/key head dim >= 1");
    check(m.v_head_dim >= 1, "model.v_head_dim", "MLA needs a value head dim >= 1");
  } else {
    check(m.head_dim >= 1, "model.head_dim", "must be >= 1");
    if (m.attention == AttentionKind::GQA)
      check(m.kv_heads >= 1 && m.kv_heads <= m.heads && m.heads % m.kv_heads == 0, "model.kv_heads",
            "GQA groups must divide the heads (expected 1..heads)");
  }
  check(m.dense_layers >= 0 && m.dense_layers <= m.layers, "model.dense_layers", "must be in [0, layers]");
  if (m.is_moe()) {
    check(m.top_k >= 1 && m.top_k <= m.routed_experts, "model.moe.top_k", "must be in [1, routed_experts]");
    check(m.expert_ffn_hidden >= 1, "model.moe.expert_ffn_hidden", "must be >= 1 with experts");
    check(m.shared_experts >= 0, "model.moe.shared_experts", "must be >= 0");
  }
  if (!m.is_moe() || m.dense_layers > 0)
    check(m.ffn_hidden >= 1, "model.ffn_hidden", "dense layers need an FFN size >= 1");
  check(m.mhc_n >= 1, "model.mhc_n", "must be >= 1");
  check(m.sinkhorn_iters >= 0, "model.mhc.sinkhorn_iters", "must be >= 0");
}

double attention_parameters_per_layer(const ModelSpec& m) {
  const double h = d(m.hidden), heads = d(m.heads);
  if (m.attention != AttentionKind::MLA)  // q, k, v, o projections
    return h * heads * qk_head_dim(m) + 2 * h * kv_groups(m) * d(m.head_dim) + heads * v_head_dim(m) * h;
  // MLA (DeepSeek-V2 sec. 2.1): W_DQ and q norm (or a full W_Q without query compression);
  // W_DKV + W_KR and kv norm; the up-projections; W_O.
  const double q = m.q_lora_rank > 0 ? h * d(m.q_lora_rank) + d(m.q_lora_rank) : h * heads * qk_head_dim(m);
  const double kv = h * d(m.kv_lora_rank + m.qk_rope_head_dim) + d(m.kv_lora_rank);
  return q + kv + mla_up_projection_parameters_per_layer(m) + heads * v_head_dim(m) * h;
}

double mla_up_projection_parameters_per_layer(const ModelSpec& m) {
  if (m.attention != AttentionKind::MLA) return 0;
  const double heads = d(m.heads);
  const double q = m.q_lora_rank > 0 ? d(m.q_lora_rank) * heads * qk_head_dim(m) : 0.0;
  return q + d(m.kv_lora_rank) * heads * d(m.qk_nope_head_dim + m.v_head_dim);
}

double expert_parameters(const ModelSpec& m) { return ffn_matrices(m) * d(m.hidden) * d(m.expert_ffn_hidden); }

double ParameterCount::activated(const ModelSpec& m) const {
  const double routed_share = m.is_moe() ? d(m.top_k) / d(m.routed_experts) : 0.0;
  return total() - embedding - routed_experts * (1.0 - routed_share);
}

ParameterCount parameter_count(const ModelSpec& m) {
  validate_model(m);
  ParameterCount p;
  const double h = d(m.hidden), moe = d(m.moe_layers());
  p.embedding = d(m.vocab) * h;
  p.head = m.tied_embeddings ? 0.0 : d(m.vocab) * h;
  p.attention = d(m.layers) * attention_parameters_per_layer(m);
  p.dense_ffn = d(m.is_moe() ? m.dense_layers : m.layers) * ffn_matrices(m) * h * d(m.ffn_hidden);
  p.routed_experts = moe * d(m.routed_experts) * expert_parameters(m);
  p.shared_experts = moe * d(m.shared_experts) * expert_parameters(m);
  p.gates = moe * d(m.routed_experts) * (h + 1.0);
  p.norms = (2.0 * d(m.layers) + 1.0) * h;
  if (is_mhc(m)) {
    const double n = d(m.mhc_n), cols = n * n + 2 * n;
    p.mhc = 2.0 * d(m.layers) * ((n * h + 1.0) * cols + 3.0);
  }
  return p;
}

double average_causal_context(int64_t seq_len) { return (d(seq_len) + 1.0) / 2.0; }

TokenFlops forward_flops_per_token(const ModelSpec& m, double context) {
  const auto p = parameter_count(m);
  check(context >= 0, "workload.seq_len", "context must be >= 0");
  TokenFlops f;
  const double routed_share = m.is_moe() ? d(m.top_k) / d(m.routed_experts) : 0.0;
  f.attention_linear = 2.0 * p.attention;
  f.attention_up_projection = 2.0 * d(m.layers) * mla_up_projection_parameters_per_layer(m);
  f.attention_core = 2.0 * d(m.layers) * d(m.heads) * (qk_head_dim(m) + v_head_dim(m)) * context;
  f.mlp = 2.0 * (p.dense_ffn + p.shared_experts + p.routed_experts * routed_share + p.gates);
  f.head = 2.0 * (p.head > 0 ? p.head : p.embedding);
  if (is_mhc(m)) {
    // Per mHC layer: x phi (2 nC (n^2+2n)), Sinkhorn (4 n^2 per iteration: exp-normalised
    // column and row sums and divides), apply H_pre (2nC), F_post,res (2n^2 C + 2nC).
    const double n = d(m.mhc_n), c = d(m.hidden);
    const double per =
        2 * n * c * (n * n + 2 * n) + 4 * n * n * d(m.sinkhorn_iters) + 2 * n * c + 2 * n * n * c + 2 * n * c;
    f.mhc = 2.0 * d(m.layers) * per;
  }
  return f;
}

double training_flops_per_token(const ModelSpec& m, int64_t seq_len, bool causal) {
  check(seq_len >= 1, "workload.seq_len", "must be >= 1");
  const double ctx = causal ? average_causal_context(seq_len) : d(seq_len);
  return 3.0 * forward_flops_per_token(m, ctx).total();
}

}  // namespace mhcsim::cost
