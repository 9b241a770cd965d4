#pragma once
// One serving step on one GPU of a model replica (tp x pp GPUs; with expert parallelism
// attention runs data-parallel, one replica per attention rank, as DeepSeek's EP144 decode does,
// open-infra day 6) at the scenario's batch. Decode: every sequence of the batch gets one token;
// prefill: the batch's prompts are processed once. The times are the serving simulator's
// iteration model (serving_step.h) at this batch, op by op; the FLOPs and bytes beside them are
// the work one micro-batch moves through one stage.
#include <cstdint>
#include <string>

#include "mhcsim/specs.h"

namespace mhcsim::cost {

struct ServeEstimate {
  int64_t micro_batches = 1;     // pp, or 2 overlapped with EP (serving_step.h), else 1
  int64_t micro_batch_seqs = 0;  // ceil(batch_seqs / micro_batches)
  double tokens_per_step = 0;    // per replica: batch_seqs (decode), x context_len (prefill)
  // The work of one micro-batch through one stage on one GPU:
  double linear_flops = 0;       // projections, FFNs, active experts, head
  double attention_flops = 0;    // attention core (MLA decode in weight-absorbed form)
  double weight_bytes = 0;       // weights streamed (routed experts: only those hit)
  double kv_bytes = 0;           // KV cache read (decode) or written (prefill)
  double elementwise_bytes = 0;  // norms, permute/combine, mHC streams
  // The whole batch (all micro-batches) through one stage:
  double linear_seconds = 0;       // GEMMs op by op (incl. FP8 casts, streamed weights) + LM head
  double attention_seconds = 0;    // attention core: max(FLOPs, KV bytes) per kernel
  double elementwise_seconds = 0;  // norms, RoPE, router, permute / combine, residual or mHC
  double tp_comm_seconds = 0;      // TP all-reduces, not overlapped
  double a2a_seconds = 0;          // EP dispatch + combine over the stage's MoE layers
  bool low_latency_a2a = false;    // DeepEP's low-latency kernels (decode), else the normal ones
  double exposed_a2a_seconds = 0;  // what the other micro-batch's compute does not hide
  double pp_send_seconds = 0;      // activations to the next stage
  double stage_seconds = 0;        // step_seconds / micro_batches
  double step_seconds = 0;
  double tokens_per_second_per_gpu = 0;
  double tokens_per_second_per_node = 0;
  int64_t gpus_for_target = 0;  // target / per GPU, in whole deployment units; 0 = no target
  int64_t nodes_for_target = 0;

  double compute_seconds() const { return linear_seconds + attention_seconds + elementwise_seconds; }
  // One step emits one token per sequence (decode) or the first token of every prompt
  // (prefill), so the user-visible latency is the step: time per output token or to first token.
  double latency_seconds() const { return step_seconds; }
};

// Serve-mode scenarios only (SpecError otherwise, and on impossible specs).
ServeEstimate serve_estimate(const Scenario& s);

struct BatchShape;
// The scenario's batch: workload.batch_seqs sequences decoding one token each over context_len
// cached tokens, or prompts of context_len tokens (workload.phase). Checks both keys.
BatchShape workload_batch(const Scenario& s);

// USD per million tokens at this throughput with every GPU busy all the time (the floor a real
// load, with its idle time, stays above; for training, the run's own cost per token):
// price per GPU-hour / (tokens/s per GPU x 3600) x 1e6.
// 0 when the GPU has no price.
double usd_per_million_tokens(double price_per_gpu_hour, double tokens_per_second_per_gpu);

// How tables name gpus_for_target: one phase at the scenario's batch with every GPU busy, the
// other phase, queueing and SLOs left out (`mhcsim serve --max-rate` sizes a fleet for them).
std::string gpus_for_target_label(ServePhase phase);

}  // namespace mhcsim::cost
