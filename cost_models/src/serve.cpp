#include "mhcsim/cost/serve.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "mhcsim/cost/all_to_all.h"
#include "mhcsim/cost/chunk_cost.h"
#include "mhcsim/cost/flops.h"
#include "mhcsim/cost/kernel_bytes.h"
#include "mhcsim/cost/kv_cache.h"
#include "mhcsim/cost/layer_ops.h"
#include "mhcsim/cost/memory.h"
#include "mhcsim/cost/mhc_traffic.h"
#include "mhcsim/cost/rates.h"
#include "check.h"
#include "layer_bytes.h"
#include "as_double.h"

namespace mhcsim::cost {

namespace {

// Communication hides behind compute up to `overlap`: two micro-batches alternate compute and
// all-to-all (DeepSeek-V3 report 3.4.2 for decode), so at full overlap the longer one wins.
double exposed_communication(double compute, double comm, double overlap) {
  return comm - overlap * std::min(compute, comm);
}
// Prefill is a training forward pass over the prompts: price it op by op (layer_ops.h), one
// micro-batch of micro_batch_seqs prompts through one stage's layers (MoE layers first: the
// most loaded stage), the LM head on the prompts' last tokens left out.
void prefill_from_ops(const Scenario& s, ServeEstimate& e) {
  Scenario mb = s;
  mb.workload.batch_seqs = e.micro_batch_seqs;
  const auto& m = s.model;
  const auto rates = op_rates(mb);
  const double stage_layers = std::ceil(d(m.layers) / d(s.parallel.pp));
  const double moe = std::min(stage_layers, d(m.moe_layers()));
  std::array<double, kOpKinds> by_kind{};
  const auto add = [&](bool moe_layer, double count) {
    if (count <= 0) return;
    for (const auto& o : layer_ops(mb, moe_layer))
      by_kind[static_cast<int>(o.kind)] += count * op_seconds(o, rates).forward;
  };
  add(true, moe);
  add(false, stage_layers - moe);
  e.linear_seconds = by_kind[static_cast<int>(OpKind::Gemm)];
  e.attention_seconds = by_kind[static_cast<int>(OpKind::Attention)];
  e.elementwise_seconds = by_kind[static_cast<int>(OpKind::MemoryBound)];
  e.tp_comm_seconds = by_kind[static_cast<int>(OpKind::Communication)];
}
}  // namespace

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

ServeEstimate serve_estimate(const Scenario& s) {
  const auto& m = s.model;
  const auto& p = s.parallel;
  const auto& w = s.workload;
  check_serving_spec(s);
  check(w.batch_seqs >= 1, "workload.batch_seqs", "must be >= 1");
  check(w.context_len >= 1, "workload.context_len", "must be >= 1");
  const auto params = parameter_count(m);  // validates the model
  const bool decode = w.phase == ServePhase::Decode;

  ServeEstimate e;
  e.micro_batches = p.pp;
  e.micro_batch_seqs = (w.batch_seqs + p.pp - 1) / p.pp;
  e.tokens_per_step = d(w.batch_seqs) * (decode ? 1.0 : d(w.context_len));
  const double tokens = d(e.micro_batch_seqs) * (decode ? 1.0 : d(w.context_len));
  const double stage = 1.0 / d(p.pp);  // the stage's share of the layers
  const double tp = d(p.tp);

  const double gemm = gemm_flops_per_second(s, s.precision.gemm);
  const double bf16 = gemm_flops_per_second(s, DType::BF16);
  const double hbm = hbm_rate(s, "hbm_copy").bytes_per_second;
  const double wbytes = bytes_per_element(s.precision.weights);

  // Dense weights (attention, dense FFNs, shared experts, router, head) serve every token.
  const double dense_params = (params.total() - params.embedding - params.routed_experts) * stage / tp;
  const double dense_flops = 2.0 * tokens * dense_params;
  double linear = std::max(dense_flops / gemm, dense_params * wbytes / hbm);
  e.linear_flops = dense_flops;
  e.weight_bytes = dense_params * wbytes;
  if (m.is_moe()) {
    // Balanced routing: each GPU of the EP group gets top_k expert rows per local token; the
    // group's tokens decide how many of this GPU's experts are streamed at all.
    const double moe_layers = d(m.moe_layers()) * stage;
    const double hosted = (d(m.routed_experts) + d(p.redundant_experts)) / d(p.ep);
    const double group_tokens = tokens * d(p.ep) / tp;
    const double hit_share = expected_experts_hit(m, group_tokens) / d(m.routed_experts);
    const double expert_bytes = moe_layers * hosted * hit_share * expert_parameters(m) * wbytes;
    const double expert_flops = moe_layers * 2.0 * tokens / tp * d(m.top_k) * expert_parameters(m);
    linear += std::max(expert_flops / gemm, expert_bytes / hbm);
    e.linear_flops += expert_flops;
    e.weight_bytes += expert_bytes;
  }
  e.linear_seconds = linear;

  // Attention core. MLA decode runs weight-absorbed over the latent (FlashMLA's accounting);
  // everything else as in training, at the attended context.
  const double layers = d(m.layers) * stage;
  const double kv_per_token = kv_bytes_per_token_per_gpu(s);
  if (decode && m.attention == AttentionKind::MLA) {
    MlaDecodeShape shape;
    shape.batch = e.micro_batch_seqs;
    shape.total_kv_tokens = e.micro_batch_seqs * w.context_len;
    shape.q_heads = std::max<int64_t>(1, m.heads / p.tp);
    shape.kv_lora_rank = m.kv_lora_rank;
    shape.rope_dim = m.qk_rope_head_dim;
    e.attention_flops = layers * mla_decode_flops(shape);
  } else {
    const double context = decode ? d(w.context_len) : average_causal_context(w.context_len);
    e.attention_flops = tokens * forward_flops_per_token(m, context).attention_core * stage / tp;
  }
  // Decode reads every cached token of the batch; prefill writes the prompts' entries.
  e.kv_bytes = (decode ? d(e.micro_batch_seqs) * d(w.context_len) : tokens) * kv_per_token;
  const double attention_rate = decode ? decode_attention_flops_per_second(s) * compute_sm_fraction(s) : bf16;
  const auto kv_rate = hbm_rate(s, m.attention == AttentionKind::MLA ? "mla_decode" : "hbm_copy");
  e.attention_seconds = std::max(e.attention_flops / attention_rate, e.kv_bytes / kv_rate.bytes_per_second);

  double elementwise = elementwise_bytes_per_token(s);
  if (m.residual != ResidualKind::Residual && m.mhc_n > 1)
    elementwise += residual_traffic_per_step(m, s.precision, /*fused=*/true, /*recompute=*/false, 1.0).forward.total();
  e.elementwise_bytes = tokens * elementwise * stage / tp;
  e.elementwise_seconds = e.elementwise_bytes / hbm;

  if (!decode) prefill_from_ops(s, e);

  if (m.is_moe() && p.ep > 1) {
    const auto a2a = a2a_time(s, tokens / tp);
    e.a2a_seconds = d(m.moe_layers()) * stage * (a2a.dispatch_seconds() + a2a.combine_seconds());
  }
  // Megatron TP: two all-reduces of the micro-batch's hidden per layer, on the critical path.
  if (decode) e.tp_comm_seconds = 2.0 * layers * tp_all_reduce_seconds(s, tokens);
  e.exposed_a2a_seconds = exposed_communication(e.compute_seconds(), e.a2a_seconds, p.overlap);
  e.pp_send_seconds = stage_send_seconds(s, stage_send_bytes(s, tokens));
  e.stage_seconds = e.compute_seconds() + e.tp_comm_seconds + e.exposed_a2a_seconds + e.pp_send_seconds;
  e.step_seconds = d(e.micro_batches) * e.stage_seconds;
  e.tokens_per_second_per_gpu = e.tokens_per_step / e.step_seconds / (tp * d(p.pp));
  e.tokens_per_second_per_node = e.tokens_per_second_per_gpu * d(s.hardware.gpus_per_node);
  if (w.target_tokens_per_second > 0) {
    e.gpus_for_target = static_cast<int64_t>(std::ceil(w.target_tokens_per_second / e.tokens_per_second_per_gpu));
    e.nodes_for_target = (e.gpus_for_target + s.hardware.gpus_per_node - 1) / s.hardware.gpus_per_node;
  }
  return e;
}

double usd_per_million_tokens(double price_per_gpu_hour, double tokens_per_second_per_gpu) {
  constexpr double kSecondsPerHour = 3600, kMillion = 1e6;
  if (price_per_gpu_hour <= 0 || tokens_per_second_per_gpu <= 0) return 0;
  return price_per_gpu_hour / (tokens_per_second_per_gpu * kSecondsPerHour) * kMillion;
}

}  // namespace mhcsim::cost
