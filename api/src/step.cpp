#include "mhcsim/api/step.h"

#include <fmt/format.h>

#include "mhcsim/cost/layer_ops.h"
#include "mhcsim/cost/serve.h"
#include "mhcsim/cost/step.h"

namespace mhcsim::api {

namespace {
std::vector<reports::Quantity> training_quantities(const Scenario& s) {
  const auto e = cost::step_estimate(s);
  const auto& c = e.chunk;
  return {{"layers_per_chunk", "layers per pipeline chunk", e.layers_per_chunk, ""},
          {"model_layers", "layers in the model", s.model.layers, ""},
          {"layers_priced", "layers priced over all chunks", e.layers_priced, ""},
          {"chunk_forward_s", "chunk forward F (compute)", c.forward_seconds(), "ms", 1e3},
          {"chunk_backward_s", "chunk backward B (compute)", c.backward_seconds(), "ms", 1e3},
          {"chunk_backward_weight_s", "chunk weight gradients W", c.backward_weight_seconds(), "ms", 1e3},
          {"chunk_recompute_s", "chunk activation recompute (in B)", c.recompute_seconds, "ms", 1e3},
          {"chunk_a2a_forward_s", "chunk all-to-all, forward", c.a2a_forward_seconds(), "ms", 1e3},
          {"chunk_exposed_a2a_s", "exposed all-to-all per chunk visit (F + B)", e.exposed_a2a_seconds, "ms", 1e3},
          {"chunk_mhc_forward_s", "chunk mHC kernels, forward", c.mhc_forward_seconds, "ms", 1e3},
          {"chunk_pp_send_s", "chunk stage-boundary send", c.pp_send_seconds, "ms", 1e3},
          {"chunk_has_lm_head", "slowest chunk is the last stage (LM head, MTP)", c.has_head, ""},
          {"chunk_gemm_s", "chunk GEMMs (F + B + W + recompute)", c.kind_seconds[0], "ms", 1e3},
          {"chunk_attention_core_s", "chunk attention core", c.kind_seconds[1], "ms", 1e3},
          {"chunk_memory_bound_s", "chunk memory-bound ops", c.kind_seconds[2], "ms", 1e3},
          {"chunk_tp_cp_comm_s", "chunk TP/CP communication", c.kind_seconds[3], "ms", 1e3},
          {"compute_s", "compute per rank", e.busy_seconds - e.exposed_a2a_per_rank_seconds, "s"},
          {"exposed_comm_s", "exposed communication per rank (EP, PP)",
           e.exposed_a2a_per_rank_seconds + e.pp_exposed_seconds, "s"},
          {"bubble_s", "pipeline bubble", e.bubble_seconds, "s"},
          {"bubble_fraction", "bubble share of the step", e.bubble_fraction(), "%", 100.0, 2},
          {"dp_sync_s", "exposed DP sync (gradients; ZeRO-3 weight gathers)", e.dp_sync_seconds, "s"},
          {"step_s", "step time", e.step_seconds, "s"},
          {"tokens_per_step", "tokens per step", static_cast<int64_t>(e.tokens_per_step), "tokens", 1.0, 0},
          {"tokens_per_s", "throughput", e.tokens_per_second, "tokens/s", 1.0, 0},
          {"training_flops_per_token", "training FLOPs per token (non-causal)", e.training_flops_per_token, "GFLOP",
           1e-9, 1},
          {"training_flops_per_token_causal", "training FLOPs per token (causal)", e.training_flops_per_token_causal,
           "GFLOP", 1e-9, 1},
          {"mfu", "MFU vs BF16 peak (non-causal)", e.mfu, "%", 100.0, 2},
          {"mfu_causal", "MFU vs BF16 peak (causal)", e.mfu_causal, "%", 100.0, 2},
          {"gpu_hours_per_1t_tokens", "GPU-hours per 1T tokens", e.gpu_hours_per_trillion_tokens, "K GPU-h", 1e-3, 1},
          {"gpu_hours_for_budget", "GPU-hours for the token budget", e.gpu_hours_for_budget, "M GPU-h", 1e-6, 3}};
}

std::vector<reports::Quantity> serving_quantities(const Scenario& s) {
  const auto e = cost::serve_estimate(s);
  const bool decode = s.workload.phase == ServePhase::Decode;
  std::vector<reports::Quantity> q = {
      {"micro_batches", "micro-batches (PP stages, or 2 overlapped for EP)", e.micro_batches, ""},
      {"micro_batch_seqs", "sequences per micro-batch", e.micro_batch_seqs, "sequences"},
      {"linear_flops", "linear FLOPs (stage, micro-batch)", e.linear_flops, "TFLOP", 1e-12},
      {"attention_flops", "attention FLOPs", e.attention_flops, "TFLOP", 1e-12},
      {"weight_bytes", "weights streamed", e.weight_bytes, "GB", 1e-9, 2},
      {"kv_bytes", decode ? "KV cache read" : "KV cache written", e.kv_bytes, "GB", 1e-9, 2},
      {"elementwise_bytes", "norms, permute/combine, mHC", e.elementwise_bytes, "GB", 1e-9, 2},
      {"linear_s", "linear layers + LM head (all micro-batches)", e.linear_seconds, "ms", 1e3},
      {"attention_s", "attention core (max of compute, KV)", e.attention_seconds, "ms", 1e3},
      {"elementwise_s", "memory-bound kernels", e.elementwise_seconds, "ms", 1e3},
      {"tp_comm_s", "TP all-reduces", e.tp_comm_seconds, "ms", 1e3},
      {"a2a_s", "EP all-to-all (dispatch + combine)", e.a2a_seconds, "ms", 1e3},
      {"a2a_kernels", "EP all-to-all kernels",
       std::string(e.a2a_seconds > 0 ? (e.low_latency_a2a ? "DeepEP low-latency" : "DeepEP normal") : "none"), ""},
      {"exposed_a2a_s", "exposed all-to-all", e.exposed_a2a_seconds, "ms", 1e3},
      {"pp_send_s", "stage-boundary send", e.pp_send_seconds, "ms", 1e3},
      {"stage_s", "stage time per micro-batch", e.stage_seconds, "ms", 1e3},
      {"step_s", "step time (whole batch)", e.step_seconds, "ms", 1e3},
      {"latency_s", decode ? "time per output token" : "time to first token", e.latency_seconds(), "ms", 1e3},
      {"tokens_per_step",
       fmt::format("{} tokens per step (replica of {} GPU{})", decode ? "output" : "prompt",
                   s.parallel.tp * s.parallel.pp, s.parallel.tp * s.parallel.pp == 1 ? "" : "s"),
       e.tokens_per_step, "tokens", 1.0, 0},
      {"tokens_per_s_per_gpu", "throughput per GPU", e.tokens_per_second_per_gpu, "tokens/s", 1.0, 0},
      {"tokens_per_s_per_node", "throughput per node", e.tokens_per_second_per_node, "tokens/s", 1.0, 0}};
  if (s.workload.target_tokens_per_second > 0) {
    q.push_back(
        {"target_tokens_per_s",
         fmt::format("serving load (workload.target_tokens_per_second, {} tokens)", decode ? "output" : "prompt"),
         s.workload.target_tokens_per_second, "tokens/s", 1.0, 0});
    q.push_back({"gpus_for_target", cost::gpus_for_target_label(s.workload.phase), e.gpus_for_target, "GPUs"});
    q.push_back({"nodes_for_target", "nodes for the load", e.nodes_for_target, "nodes"});
  }
  return q;
}
}  // namespace

std::vector<reports::Quantity> step_quantities(const Scenario& s) {
  return s.workload.mode == WorkloadMode::Train ? training_quantities(s) : serving_quantities(s);
}

std::string step_title(const Scenario& s) {
  const std::string kind =
      s.workload.mode == WorkloadMode::Train ? "training" : std::string(to_string(s.workload.phase));
  return kind + " step estimate: " + s.name;
}

reports::Table step_ops_table(const Scenario& s) {
  const bool moe = s.model.is_moe();
  reports::Table t(
      fmt::format("operations of one {} layer, one micro-batch, one GPU: {}", moe ? "MoE" : "dense", s.name),
      {{"op", "op"},
       {"kind", "kind"},
       {"shape", "GEMM M x N x K (groups)"},
       {"forward_s", "fwd (us)", 1, 1e6},
       {"backward_input_s", "dgrad (us)", 1, 1e6},
       {"backward_weight_s", "wgrad (us)", 1, 1e6},
       {"recomputed", "recomputed"},
       {"saved_bytes", "saved (MiB)", 2, 1.0 / (1 << 20)}});
  const auto rates = cost::op_rates(s);
  for (const auto& o : cost::layer_ops(s, moe)) {
    const auto sec = cost::op_seconds(o, rates);
    const auto& g = o.gemm;
    std::string shape = o.kind == cost::OpKind::Gemm ? fmt::format("{} x {} x {}{}", g.m, g.n, g.k,
                                                                   g.groups > 1 ? fmt::format(" ({})", g.groups) : "")
                                                     : "";
    t.add_row({std::string(o.name), std::string(cost::to_string(o.kind)), shape, sec.forward, sec.backward_input,
               sec.backward_weight, o.recomputed, o.saved_bytes});
  }
  return t;
}

}  // namespace mhcsim::api
