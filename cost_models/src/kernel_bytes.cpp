#include "mhcsim/cost/kernel_bytes.h"

#include "mhcsim/cost/mhc_traffic.h"
#include "check.h"

namespace mhcsim::cost {

namespace {
constexpr double kF32 = 4.0;  // coefficients, weights, routing weights
constexpr double kIdx = 4.0;  // int32 indices

void require_shape(int64_t n, int64_t channels, int64_t tokens) {
  check(n >= 1, "model.mhc.n", "expansion rate must be >= 1");
  check(channels >= 1, "model.hidden", "channels must be >= 1");
  check(tokens >= 0, "tokens", "token count must be >= 0");
}

}  // namespace

KernelBytes mhc_coeff_bytes(int64_t n, int64_t channels, int64_t tokens, DType act) {
  require_shape(n, channels, tokens);
  auto b = traffic_bytes(mhc_coefficients_row(n), channels, tokens, act);
  const double cols = static_cast<double>(n * n + 2 * n);
  b.read_bytes += (static_cast<double>(n * channels) + 1.0) * cols * kF32;  // phi + bias
  return b;
}

KernelBytes mhc_sinkhorn_forward_bytes(int64_t n, int64_t tokens) {
  require_shape(n, 1, tokens);
  const double m = static_cast<double>(n * n * tokens) * kF32;
  return {m, m};
}

KernelBytes mhc_sinkhorn_backward_bytes(int64_t n, int64_t tokens) {
  require_shape(n, 1, tokens);
  const double m = static_cast<double>(n * n * tokens) * kF32;
  return {2 * m, m};
}

KernelBytes mhc_pre_bytes(int64_t n, int64_t channels, int64_t tokens, DType act) {
  require_shape(n, channels, tokens);
  return traffic_bytes(mhc_apply_pre_row(n), channels, tokens, act);
}

KernelBytes mhc_post_res_fused_bytes(int64_t n, int64_t channels, int64_t tokens, DType act) {
  require_shape(n, channels, tokens);
  return traffic_bytes(mhc_post_res_fused_row(n), channels, tokens, act);
}

KernelBytes mhc_post_res_unfused_bytes(int64_t n, int64_t channels, int64_t tokens, DType act) {
  require_shape(n, channels, tokens);
  return traffic_bytes(mhc_post_res_unfused_row(n), channels, tokens, act);
}

namespace {
void require_mla(const MlaDecodeShape& s) {
  check(s.batch >= 1, "workload.batch_seqs", "batch must be >= 1");
  check(s.q_tokens >= 1, "q_tokens", "query tokens per sequence must be >= 1");
  check(s.total_kv_tokens >= 0, "workload.context_len", "KV length must be >= 0");
  check(s.q_heads >= 1, "model.heads", "query heads must be >= 1");
  check(s.kv_lora_rank >= 1, "model.kv_lora_rank", "d_c must be >= 1");
  check(s.rope_dim >= 0, "model.qk_rope_head_dim", "RoPE dim must be >= 0");
}
// Per query-head elements touched per (query, key) pair: QK over d_c + d_R, PV over d_c.
double mla_qk_pv_elems(const MlaDecodeShape& s) { return static_cast<double>(2 * s.kv_lora_rank + s.rope_dim); }
}  // namespace

// FlashMLA tests/test_flash_mla.py accounting (DESIGN.md "More published figures").
double mla_decode_flops(const MlaDecodeShape& s) {
  require_mla(s);
  return 2.0 * static_cast<double>(s.q_tokens) * static_cast<double>(s.total_kv_tokens) *
         static_cast<double>(s.q_heads) * mla_qk_pv_elems(s);
}

double mla_cache_row_bytes(int64_t kv_lora_rank, int64_t rope_dim, DType kv) {
  constexpr int64_t kFp8ScaleTile = 128;  // FlashMLA: one fp32 scale per 128 latent values
  if (kv == DType::FP8) {
    const int64_t scales = (kv_lora_rank + kFp8ScaleTile - 1) / kFp8ScaleTile;
    return static_cast<double>(kv_lora_rank + 4 * scales) + 2.0 * static_cast<double>(rope_dim);
  }
  return static_cast<double>(kv_lora_rank + rope_dim) * bytes_per_element(kv);
}

double mla_decode_bytes(const MlaDecodeShape& s, DType kv, DType q) {
  require_mla(s);
  const double q_elems = static_cast<double>(s.batch * s.q_tokens * s.q_heads) * mla_qk_pv_elems(s);
  return static_cast<double>(s.total_kv_tokens) * mla_cache_row_bytes(s.kv_lora_rank, s.rope_dim, kv) +
         q_elems * bytes_per_element(q);
}

namespace {
void require_moe(int64_t tokens, int64_t top_k, int64_t hidden) {
  check(tokens >= 0, "tokens", "token count must be >= 0");
  check(top_k >= 1, "model.moe.top_k", "top-k must be >= 1");
  check(hidden >= 1, "model.hidden", "hidden must be >= 1");
}
}  // namespace

double mhc_coeff_flops(int64_t n, int64_t channels, int64_t tokens) {
  require_shape(n, channels, tokens);
  return 2.0 * static_cast<double>(n * channels) * static_cast<double>(n * n + 2 * n) * static_cast<double>(tokens);
}

KernelBytes moe_gate_bytes(int64_t tokens, int64_t experts, int64_t top_k) {
  require_moe(tokens, top_k, 1);
  check(experts >= top_k, "model.moe.routed_experts", "must be >= top_k");
  const double t = static_cast<double>(tokens), e = static_cast<double>(experts);
  return {kF32 * (t * e + e), (kF32 + kIdx) * t * static_cast<double>(top_k)};
}

KernelBytes moe_permute_bytes(int64_t tokens, int64_t top_k, int64_t hidden, DType act) {
  require_moe(tokens, top_k, hidden);
  const double t = static_cast<double>(tokens), rows = t * static_cast<double>(top_k);
  const double row = static_cast<double>(hidden) * bytes_per_element(act);
  return {t * row + rows * kIdx, rows * row + 2 * rows * kIdx};
}

KernelBytes moe_combine_bytes(int64_t tokens, int64_t top_k, int64_t hidden, DType act) {
  require_moe(tokens, top_k, hidden);
  const double t = static_cast<double>(tokens), rows = t * static_cast<double>(top_k);
  const double row = static_cast<double>(hidden) * bytes_per_element(act);
  return {rows * row + rows * (kF32 + kIdx), t * row};
}

}  // namespace mhcsim::cost
