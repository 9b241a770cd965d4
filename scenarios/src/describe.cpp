#include "mhcsim/scenarios/describe.h"

namespace mhcsim::scenarios {
namespace {

// The [published] table as written (figures keyed by metric name), or null without one.
nlohmann::json published_json(const std::optional<PublishedResults>& p) {
  if (!p) return nullptr;
  nlohmann::json figures = nlohmann::json::object();
  for (const auto& f : p->figures) figures[f.metric] = f.value;
  return {{"source", p->source}, {"held_out", p->held_out}, {"figures", figures}};
}

}  // namespace

nlohmann::json to_json(const Scenario& s) {
  const auto& m = s.model;
  const auto& h = s.hardware;
  const auto& pr = s.precision;
  const auto& p = s.parallel;
  const auto& w = s.workload;
  auto dt = [](DType t) { return std::string(to_string(t)); };
  return {
      {"name", s.name},
      {"source", s.source},
      {"path", s.path},
      {"model",
       {{"name", m.name},
        {"layers", m.layers},
        {"hidden", m.hidden},
        {"vocab", m.vocab},
        {"attention", std::string(to_string(m.attention))},
        {"heads", m.heads},
        {"kv_heads", m.kv_heads},
        {"head_dim", m.head_dim},
        {"q_lora_rank", m.q_lora_rank},
        {"kv_lora_rank", m.kv_lora_rank},
        {"qk_nope_head_dim", m.qk_nope_head_dim},
        {"qk_rope_head_dim", m.qk_rope_head_dim},
        {"v_head_dim", m.v_head_dim},
        {"dense_layers", m.dense_layers},
        {"mtp_depth", m.mtp_depth},
        {"ffn_hidden", m.ffn_hidden},
        {"mlp", std::string(to_string(m.mlp))},
        {"dropout", m.dropout},
        {"routed_experts", m.routed_experts},
        {"shared_experts", m.shared_experts},
        {"top_k", m.top_k},
        {"expert_ffn_hidden", m.expert_ffn_hidden},
        {"expert_groups", m.expert_groups},
        {"max_groups_per_token", m.max_groups_per_token},
        {"residual", std::string(to_string(m.residual))},
        {"mhc_n", m.mhc_n},
        {"sinkhorn_iters", m.sinkhorn_iters}}},
      {"hardware",
       {{"gpu", h.gpu.name},
        {"gpus", h.gpus},
        {"gpus_per_node", h.gpus_per_node},
        {"nvlink_domain_gpus", h.nvlink_domain()},
        {"hbm_bytes", h.gpu.hbm_bytes},
        {"hbm_gb_per_s", h.gpu.hbm_gb_per_s},
        {"bf16_tflops", h.gpu.bf16_tflops},
        {"fp8_tflops", h.gpu.fp8_tflops},
        {"fp4_tflops", h.gpu.fp4_tflops},
        {"nvlink_gb_per_s_per_direction", h.gpu.nvlink_gb_per_s},
        {"nic_gb_per_s_per_gpu", h.nic_gb_per_s_per_gpu},
        {"nvlink_latency_us", h.nvlink_latency_us},
        {"nic_latency_us", h.nic_latency_us},
        {"price_per_gpu_hour", h.price_per_gpu_hour},
        {"price_source", h.price_source},
        {"tdp_watts", h.gpu.tdp_watts},
        {"pue", h.pue},
        {"catalog", s.hardware_catalog}}},
      {"precision",
       {{"gemm", dt(pr.gemm)},
        {"activations", dt(pr.activations)},
        {"weights", dt(pr.weights)},
        {"master_weights", dt(pr.master_weights)},
        {"grads", dt(pr.grads)},
        {"optimizer_states", dt(pr.optimizer_states)},
        {"kv_cache", dt(pr.kv_cache)},
        {"dispatch", dt(pr.dispatch)},
        {"combine", dt(pr.combine)},
        {"fp8_tile", pr.fp8_tile},
        {"fp8_gemm_kernels", std::string(to_string(pr.fp8_gemm_kernels))}}},
      {"parallel",
       {{"tp", p.tp},
        {"cp", p.cp},
        {"pp", p.pp},
        {"dp", p.dp},
        {"ep", p.ep},
        {"sequence_parallel", p.sequence_parallel},
        {"flash_attention", p.flash_attention},
        {"tp_overlap", p.tp_overlap},
        {"max_nodes_per_token", p.max_nodes_per_token},
        {"redundant_experts", p.redundant_experts},
        {"expert_imbalance", p.expert_imbalance},
        {"schedule", std::string(to_string(p.schedule))},
        {"micro_batches", p.micro_batches},
        {"virtual_stages", p.virtual_stages},
        {"combined_1f1b", p.combined_1f1b},
        {"stages", p.stage_count()},
        {"zero_stage", p.zero_stage},
        {"activation_recompute", std::string(to_string(p.activation_recompute))},
        {"recompute_mhc", p.recompute_mhc},
        {"mhc_recompute_block", p.mhc_recompute_block},
        {"overlap", p.overlap},
        {"pp_overlap", p.pp_overlap},
        {"extra_stage_layers", p.extra_stage_layers}}},
      {"workload",
       {{"mode", std::string(to_string(w.mode))},
        {"seq_len", w.seq_len},
        {"micro_batch_seqs", w.micro_batch_seqs},
        {"global_batch_seqs", w.global_batch_seqs},
        {"token_budget", w.token_budget},
        {"phase", std::string(to_string(w.phase))},
        {"context_len", w.context_len},
        {"batch_seqs", w.batch_seqs},
        {"kv_block_tokens", w.kv_block_tokens},
        {"target_tokens_per_second", w.target_tokens_per_second}}},
      {"calibration_profile", s.calibration_path ? nlohmann::json(*s.calibration_path) : nullptr},
      {"published", published_json(s.published)},
  };
}

}  // namespace mhcsim::scenarios
