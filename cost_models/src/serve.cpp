#include "mhcsim/cost/serve.h"

#include <algorithm>
#include <cmath>

#include "mhcsim/cost/all_to_all.h"
#include "mhcsim/cost/flops.h"
#include "mhcsim/cost/kernel_bytes.h"
#include "mhcsim/cost/kv_cache.h"
#include "mhcsim/cost/mhc_traffic.h"
#include "mhcsim/cost/serving_step.h"
#include "check.h"
#include "layer_bytes.h"
#include "as_double.h"

namespace mhcsim::cost {

void check_serving_spec(const Scenario& s) {
  const auto& p = s.parallel;
  check(s.workload.mode == WorkloadMode::Serve, "workload.mode", "serving estimates need mode = \"serve\"");
  check_parallel_ranges(p);
  check(p.pp <= s.model.layers, "parallel.pp", "cannot exceed model.layers");
}

void check_parallel_ranges(const ParallelSpec& p) {
  check(p.tp >= 1, "parallel.tp", "must be >= 1");
  check(p.pp >= 1, "parallel.pp", "must be >= 1");
  check(p.dp >= 1, "parallel.dp", "must be >= 1");
  check(p.cp >= 1, "parallel.cp", "must be >= 1");
  check(p.ep >= 1, "parallel.ep", "must be >= 1");
  check(p.micro_batches >= 1, "parallel.micro_batches", "must be >= 1");
  check(p.virtual_stages >= 1, "parallel.virtual_stages", "must be >= 1");
  check(p.zero_stage >= 0 && p.zero_stage <= 3, "parallel.zero_stage", "must be 0..3");
  check(p.max_nodes_per_token >= 0, "parallel.max_nodes_per_token", "must be >= 0");
  check(p.overlap >= 0 && p.overlap <= 1, "parallel.overlap", "must be in [0, 1]");
  check(p.pp_overlap >= 0 && p.pp_overlap <= 1, "parallel.pp_overlap", "must be in [0, 1]");
}

BatchShape workload_batch(const Scenario& s) {
  const auto& w = s.workload;
  check(w.batch_seqs >= 1, "workload.batch_seqs", "must be >= 1");
  check(w.context_len >= 1, "workload.context_len", "must be >= 1");
  const double seqs = d(w.batch_seqs);
  const double len = d(w.context_len);
  return w.phase == ServePhase::Decode ? decode_batch(seqs, len) : prompt_batch(seqs, len);
}

ServeEstimate serve_estimate(const Scenario& s) {
  const auto& m = s.model;
  const auto& p = s.parallel;
  const auto& w = s.workload;
  check_serving_spec(s);
  const auto batch = workload_batch(s);
  const auto params = parameter_count(m);  // validates the model
  const bool decode = w.phase == ServePhase::Decode;
  const double seqs = d(w.batch_seqs);
  const double len = d(w.context_len);

  // The time is the serving simulator's iteration model at this one batch (serving_step.h):
  // `step`, `simulate`, sweeps, reports and `serve` price a batch the same way.
  const auto it = ServingStepModel::time_once(s, batch);
  ServeEstimate e;
  e.micro_batches = it.micro_batches;
  e.micro_batch_seqs = (w.batch_seqs + e.micro_batches - 1) / e.micro_batches;
  e.tokens_per_step = seqs * (decode ? 1.0 : len);
  e.linear_seconds = it.linear_seconds + it.head_seconds;
  e.attention_seconds = it.attention_seconds;
  e.elementwise_seconds = it.memory_bound_seconds;
  e.tp_comm_seconds = it.tp_comm_seconds;
  e.a2a_seconds = it.a2a_seconds;
  e.exposed_a2a_seconds = it.exposed_a2a_seconds;
  e.pp_send_seconds = it.pp_send_seconds;
  e.low_latency_a2a = it.low_latency_a2a;
  e.step_seconds = it.seconds;
  e.stage_seconds = it.seconds / d(e.micro_batches);

  // What one micro-batch moves through one stage on one GPU (the work behind those times).
  const double tokens = d(e.micro_batch_seqs) * (decode ? 1.0 : len);
  const double stage = 1.0 / d(p.pp);  // the stage's share of the layers
  const double tp = d(p.tp);
  const double wbytes = bytes_per_element(s.precision.weights);
  // Dense weights (attention, dense FFNs, shared experts, router, head) serve every token.
  const double dense_params = (params.total() - params.embedding - params.routed_experts) * stage / tp;
  e.linear_flops = 2.0 * tokens * dense_params;
  e.weight_bytes = dense_params * wbytes;
  if (m.is_moe()) {
    // Balanced routing: each GPU of the EP group gets top_k expert rows per local token; the
    // group's tokens decide how many of this GPU's experts are streamed at all.
    const double moe_layers = d(m.moe_layers()) * stage;
    const double hosted = (d(m.routed_experts) + d(p.redundant_experts)) / d(p.ep);
    const double group_tokens = tokens * d(p.ep) / tp;
    const double hit_share = expected_experts_hit(m, group_tokens) / d(m.routed_experts);
    e.linear_flops += moe_layers * 2.0 * tokens / tp * d(m.top_k) * expert_parameters(m);
    e.weight_bytes += moe_layers * hosted * hit_share * expert_parameters(m) * wbytes;
  }
  // Attention core. MLA decode runs weight-absorbed over the latent (FlashMLA's accounting);
  // everything else as in training, at the attended context.
  const double layers = d(m.layers) * stage;
  if (decode && m.attention == AttentionKind::MLA) {
    MlaDecodeShape shape;
    shape.batch = e.micro_batch_seqs;
    shape.total_kv_tokens = e.micro_batch_seqs * w.context_len;
    shape.q_heads = std::max<int64_t>(1, m.heads / p.tp);
    shape.kv_lora_rank = m.kv_lora_rank;
    shape.rope_dim = m.qk_rope_head_dim;
    e.attention_flops = layers * mla_decode_flops(shape);
  } else {
    const double context = decode ? len : average_causal_context(w.context_len);
    e.attention_flops = tokens * forward_flops_per_token(m, context).attention_core * stage / tp;
  }
  // Decode reads every cached token of the batch; prefill writes the prompts' entries.
  e.kv_bytes = (decode ? d(e.micro_batch_seqs) * len : tokens) * kv_bytes_per_token_per_gpu(s);
  double elementwise = elementwise_bytes_per_token(s);
  if (m.residual != ResidualKind::Residual && m.mhc_n > 1)
    elementwise += residual_traffic_per_step(m, s.precision, /*fused=*/true, /*recompute=*/false, 1.0).forward.total();
  e.elementwise_bytes = tokens * elementwise * stage / tp;

  e.tokens_per_second_per_gpu = e.tokens_per_step / e.step_seconds / (tp * d(p.pp));
  e.tokens_per_second_per_node = e.tokens_per_second_per_gpu * d(s.hardware.gpus_per_node);
  if (w.target_tokens_per_second > 0) {
    // Whole deployment units: an EP group is deployed, or not, as one.
    const double unit = d(deployment_unit_gpus(s));
    e.gpus_for_target =
        static_cast<int64_t>(unit * std::ceil(w.target_tokens_per_second / e.tokens_per_second_per_gpu / unit));
    e.nodes_for_target = (e.gpus_for_target + s.hardware.gpus_per_node - 1) / s.hardware.gpus_per_node;
  }
  return e;
}

std::string gpus_for_target_label(ServePhase phase) {
  return "GPUs for the load (" + std::string(to_string(phase)) + " alone at a full batch, no SLO: a floor)";
}

double usd_per_million_tokens(double price_per_gpu_hour, double tokens_per_second_per_gpu) {
  constexpr double kSecondsPerHour = 3600, kMillion = 1e6;
  if (price_per_gpu_hour <= 0 || tokens_per_second_per_gpu <= 0) return 0;
  return price_per_gpu_hour / (tokens_per_second_per_gpu * kSecondsPerHour) * kMillion;
}

}  // namespace mhcsim::cost
