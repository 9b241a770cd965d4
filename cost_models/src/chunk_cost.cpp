// chunk_cost(): the prices sim/ schedules. Whole-model work per micro-batch is split evenly
// over the layer-equivalents (layers + extra_stage_layers) and a chunk takes its share.
#include "mhcsim/cost/chunk_cost.h"

#include "mhcsim/cost/all_to_all.h"
#include "mhcsim/cost/flops.h"
#include "mhcsim/cost/kernel_bytes.h"
#include "mhcsim/cost/memory.h"
#include "mhcsim/cost/mhc_traffic.h"
#include "mhcsim/cost/rates.h"
#include "check.h"
#include "layer_bytes.h"

namespace mhcsim::cost {

namespace {
double d(int64_t v) { return static_cast<double>(v); }

struct Micro {
  double tokens = 0;   // tokens in one micro-batch
  double context = 0;  // keys attended per query
};
Micro micro_batch(const WorkloadSpec& w) {
  check(w.seq_len >= 1, "workload.seq_len", "must be >= 1");
  check(w.micro_batch_seqs >= 1, "workload.micro_batch_seqs", "must be >= 1");
  check(w.context_len >= 1, "workload.context_len", "must be >= 1");
  check(w.batch_seqs >= 1, "workload.batch_seqs", "must be >= 1");
  if (w.mode == WorkloadMode::Train)
    return {d(w.micro_batch_seqs * w.seq_len), average_causal_context(w.seq_len)};
  if (w.phase == ServePhase::Prefill)
    return {d(w.batch_seqs * w.context_len), average_causal_context(w.context_len)};
  return {d(w.batch_seqs), d(w.context_len)};
}

}  // namespace

double tp_all_reduce_seconds(const Scenario& s, double tokens) {
  const auto& p = s.parallel;
  if (p.tp <= 1) return 0;
  const double bytes = tokens * d(s.model.hidden) * bytes_per_element(s.precision.activations);
  return ring_all_reduce_seconds(allreduce_rate(s, p.tp > s.hardware.gpus_per_node), bytes, d(p.tp));
}

double stage_send_bytes(const Scenario& s, double tokens) {
  const auto& m = s.model;
  const double streams = m.residual != ResidualKind::Residual ? d(m.mhc_n) : 1.0;
  return tokens * streams * d(m.hidden) * bytes_per_element(s.precision.activations);
}

double stage_send_seconds(const Scenario& s, double bytes) {
  if (s.parallel.pp <= 1) return 0;
  // Stages sit on different nodes once the job spans nodes (PP outermost, Megatron order).
  const bool cross_node = s.hardware.gpus > s.hardware.gpus_per_node;
  return (cross_node ? nic_rate(s) : nvlink_rate(s)).seconds(bytes, 1);
}

ChunkCost chunk_cost(const Scenario& s, int64_t layers_per_chunk) {
  const auto& m = s.model;
  const auto& p = s.parallel;
  validate_model(m);
  check(layers_per_chunk >= 1, "layers_per_chunk", "must be >= 1");
  check(p.tp >= 1, "parallel.tp", "must be >= 1");
  check(p.overlap >= 0 && p.overlap <= 1, "parallel.overlap", "must be in [0, 1]");
  const double equivalents = d(m.layers + p.extra_stage_layers);
  check(d(layers_per_chunk) <= equivalents, "layers_per_chunk",
          "cannot exceed the model's layers incl. extra stage layers");
  const Micro mb = micro_batch(s.workload);
  // This GPU's share of the micro-batch's whole-model work: chunk share, split over TP.
  const double work = mb.tokens * d(layers_per_chunk) / equivalents / d(p.tp);

  const auto f = forward_flops_per_token(m, mb.context);
  const double sm = compute_sm_fraction(s);
  const double gemm = gemm_flops_per_second(s, s.precision.gemm) * sm;
  // Attention core, embedding/head stay in BF16 (DeepSeek-V3 report 3.3.1).
  const double bf16 = gemm_flops_per_second(s, DType::BF16) * sm;
  const auto hbm = hbm_rate(s, "hbm_copy");
  double elementwise = work * elementwise_bytes_per_token(s) / hbm.bytes_per_second;

  ChunkCost c;
  c.layers = layers_per_chunk;
  const double attn_linear = work * f.attention_linear / gemm;
  const double attn_core = work * f.attention_core / bf16;
  const double mlp_linear = work * (f.mlp / gemm + f.head / bf16);

  // mHC kernels (fused F_post,res, paper 4.3.1), half per sublayer kind; recompute replays
  // the forward kernels inside the backward.
  const auto traffic = residual_traffic_per_step(m, s.precision, /*fused=*/true,
                                                 p.recompute_mhc, work);
  const auto mhc_rate = hbm_rate(s, "mhc_post_res_fused");
  double mhc_forward = traffic.forward.total() / mhc_rate.bytes_per_second;
  double mhc_backward = (traffic.backward.total() + traffic.recompute.total()) / mhc_rate.bytes_per_second;
  if (m.residual == ResidualKind::Residual || m.mhc_n == 1) {  // a plain merge: elementwise
    elementwise += mhc_forward;
    mhc_forward = mhc_backward = 0;
  }
  c.mhc_forward_seconds = mhc_forward;

  // Megatron TP (Shoeybi et al. 2019, sec. 3): one all-reduce of the micro-batch's hidden after
  // attention and one after the MLP in the forward, the same two in the backward; they sit
  // between dependent GEMMs, so they count as compute-path time, not as overlappable traffic.
  const double tp_all_reduce = d(layers_per_chunk) * tp_all_reduce_seconds(s, mb.tokens);
  c.tp_comm_seconds = 4.0 * tp_all_reduce;

  c.attn_forward_seconds = attn_linear + attn_core + 0.5 * (elementwise + c.mhc_forward_seconds) + tp_all_reduce;
  c.mlp_forward_seconds = mlp_linear + 0.5 * (elementwise + c.mhc_forward_seconds) + tp_all_reduce;
  // Backward: dgrad and wgrad each cost the forward GEMM; attention's core backward is 2x its
  // forward, all input gradient; memory-bound kernels 2x (read output grads, write input grads).
  // Activation recompute replays forward work inside the input-gradient pass. Selective
  // (DeepSeek-V3 report 3.2.3): the RMSNorms, MLA's up-projections and SwiGLU; full: the whole
  // forward (the all-to-all is not replayed: the dispatched tokens stay cached).
  double attn_recompute = 0, mlp_recompute = 0;
  switch (p.activation_recompute) {
    case ActivationRecompute::None: break;
    case ActivationRecompute::Selective:
      attn_recompute = work * (f.attention_up_projection / gemm + 0.5 * norm_bytes_per_token(s) / hbm.bytes_per_second);
      mlp_recompute = work * (swiglu_bytes_per_token(s) + 0.5 * norm_bytes_per_token(s)) / hbm.bytes_per_second;
      break;
    case ActivationRecompute::Full:
      attn_recompute = c.attn_forward_seconds;
      mlp_recompute = c.mlp_forward_seconds;
      break;
  }
  c.recompute_seconds = attn_recompute + mlp_recompute;
  c.attn_backward_input_seconds =
      attn_linear + 2 * attn_core + elementwise + 0.5 * mhc_backward + attn_recompute + tp_all_reduce;
  c.attn_backward_weight_seconds = attn_linear;
  c.mlp_backward_input_seconds = mlp_linear + elementwise + 0.5 * mhc_backward + mlp_recompute + tp_all_reduce;
  c.mlp_backward_weight_seconds = mlp_linear;

  if (m.is_moe() && p.ep > 1) {
    const double moe_layers = d(layers_per_chunk) * d(m.moe_layers()) / equivalents;
    const auto a2a = a2a_time(s, mb.tokens);
    c.dispatch_seconds = moe_layers * a2a.dispatch_seconds();
    c.combine_seconds = moe_layers * a2a.combine_seconds();
  }

  c.pp_send_bytes = stage_send_bytes(s, mb.tokens);
  c.pp_send_seconds = stage_send_seconds(s, c.pp_send_bytes);
  c.activation_bytes = mb.tokens / d(p.tp) * activation_bytes_per_token(s, layers_per_chunk);
  return c;
}

}  // namespace mhcsim::cost
