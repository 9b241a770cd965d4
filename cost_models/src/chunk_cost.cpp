// chunk_cost(): the prices sim/ schedules and the step estimate composes, summed over the ops
// of the chunk's layers (layer_ops.h).
#include "mhcsim/cost/chunk_cost.h"

#include <algorithm>

#include "mhcsim/cost/all_to_all.h"
#include "mhcsim/cost/flops.h"
#include "mhcsim/cost/memory.h"
#include "mhcsim/cost/mhc_traffic.h"
#include "mhcsim/cost/rates.h"
#include "as_double.h"
#include "check.h"

namespace mhcsim::cost {

namespace {

void check_workload(const WorkloadSpec& w) {
  check(w.seq_len >= 1, "workload.seq_len", "must be >= 1");
  check(w.micro_batch_seqs >= 1, "workload.micro_batch_seqs", "must be >= 1");
  check(w.context_len >= 1, "workload.context_len", "must be >= 1");
  check(w.batch_seqs >= 1, "workload.batch_seqs", "must be >= 1");
}

// MoE layers in the most loaded chunk of `layers` layers.
int64_t moe_layers_in_chunk(const ModelSpec& m, int64_t layers) { return std::min(layers, m.moe_layers()); }

double saved_bytes(const std::vector<Op>& ops) {
  double b = 0;
  for (const auto& o : ops) b += o.saved_bytes;
  return b;
}
}  // namespace

double tp_all_reduce_seconds(const Scenario& s, double tokens) {
  const auto& p = s.parallel;
  if (p.tp <= 1) return 0;
  const double bytes = tokens * d(s.model.hidden) * bytes_per_element(s.precision.activations);
  return ring_all_reduce_seconds(allreduce_rate(s, p.tp > s.hardware.nvlink_domain()), bytes, d(p.tp));
}

double stage_send_bytes(const Scenario& s, double tokens) {
  const auto& m = s.model;
  const double streams = m.residual != ResidualKind::Residual ? d(m.mhc_n) : 1.0;
  // With sequence parallelism each TP rank sends its 1/tp of the sequence (Megatron's
  // scatter-gather optimisation, Narayanan et al. 2021 sec. 4.1, does the same without SP).
  return tokens * streams * d(m.hidden) * bytes_per_element(s.precision.activations);
}

double stage_send_seconds(const Scenario& s, double bytes) {
  if (s.parallel.pp <= 1) return 0;
  // Stages sit in different NVLink domains once the job spans more than one (PP outermost,
  // Megatron order).
  const bool cross_node = s.hardware.gpus > s.hardware.nvlink_domain();
  return (cross_node ? nic_rate(s) : nvlink_rate(s)).seconds(bytes, 1);
}

namespace {
// Saved tensors of the chunk's layers (built by the caller) and the mHC streams.
double activation_bytes(const Scenario& s, int64_t layers, const std::vector<Op>& moe_ops,
                        const std::vector<Op>& dense_ops) {
  const auto& m = s.model;
  const int64_t moe = moe_layers_in_chunk(m, layers);
  double bytes = 0;
  if (s.parallel.activation_recompute == ActivationRecompute::Full) {
    bytes = d(layers) * layer_input_bytes(s);
  } else {
    bytes = d(moe) * saved_bytes(moe_ops) + d(layers - moe) * saved_bytes(dense_ops);
  }
  if (m.residual != ResidualKind::Residual && m.mhc_n > 1 && layers > 0) {
    const int64_t block = recompute_block(s, layers);
    const double elems = block > 0 ? mhc_stored_elems_recompute(m.mhc_n, m.hidden, 2 * layers, block)
                                   : mhc_stored_elems_no_recompute(m.mhc_n, m.hidden, 2 * layers);
    const double tokens = micro_batch_tokens(s) / (s.parallel.sequence_parallel ? d(s.parallel.tp) : 1.0);
    bytes += tokens * elems * bytes_per_element(s.precision.activations);
  }
  return bytes;
}

// What the last stage keeps beyond its layers for the backward: each MTP module's block (of the
// model's last kind, `block_ops`), norms and projection, and per head the final norm, the head's
// input and cross-entropy's fp32 logits (tokens x vocab / TP x 4 B: 2.1 GB per 4,096-token
// micro-batch of DeepSeek-V3, over three of its MoE layers' 0.59 GiB each).
double head_activation_bytes(const Scenario& s, const std::vector<Op>& block_ops) {
  const int64_t mtp = s.model.mtp_depth;
  double bytes = d(1 + mtp) * saved_bytes(head_ops(s));
  // A block under full recompute keeps its input alone, as the chunk's layers do.
  const double block =
      s.parallel.activation_recompute == ActivationRecompute::Full ? layer_input_bytes(s) : saved_bytes(block_ops);
  if (mtp > 0) bytes += d(mtp) * (saved_bytes(mtp_ops(s)) + block);
  return bytes;
}

// The transformer blocks a chunk of `layers` runs, MoE layers first (the most loaded stage), and
// on the last stage one more per MTP module, of the model's last kind; the ops of each kind it
// runs.
struct ChunkBlocks {
  int64_t moe = 0, dense = 0;
  std::vector<Op> moe_ops, dense_ops;
  const std::vector<Op>& last_kind_ops(const ModelSpec& m) const { return m.is_moe() ? moe_ops : dense_ops; }
};
ChunkBlocks chunk_blocks(const Scenario& s, int64_t layers, bool last_stage) {
  const auto& m = s.model;
  const int64_t mtp = last_stage ? m.mtp_depth : 0;
  ChunkBlocks b;
  b.moe = moe_layers_in_chunk(m, layers) + (m.is_moe() ? mtp : 0);
  b.dense = layers + mtp - b.moe;
  if (b.moe > 0) b.moe_ops = layer_ops(s, true);
  if (b.dense > 0) b.dense_ops = layer_ops(s, false);
  return b;
}

// ChunkCost::activation_bytes: the layers' saved tensors, and on the last stage its head's and
// MTP modules'.
double chunk_activations(const Scenario& s, int64_t layers, bool last_stage, const ChunkBlocks& b) {
  const double bytes = activation_bytes(s, layers, b.moe_ops, b.dense_ops);
  return last_stage ? bytes + head_activation_bytes(s, b.last_kind_ops(s.model)) : bytes;
}
}  // namespace

double chunk_activation_bytes(const Scenario& s, int64_t layers, bool last_stage) {
  validate_model(s.model);
  check(layers >= (last_stage ? 0 : 1), "layers", last_stage ? "must be >= 0 on the last stage" : "must be >= 1");
  return chunk_activations(s, layers, last_stage, chunk_blocks(s, layers, last_stage));
}

ChunkCost chunk_cost(const Scenario& s, int64_t layers_per_chunk, bool last_stage) {
  const auto& m = s.model;
  const auto& p = s.parallel;
  validate_model(m);
  check_workload(s.workload);
  // The last stage may hold no layer of its own, only the head and the MTP modules.
  check(layers_per_chunk >= (last_stage ? 0 : 1), "layers_per_chunk",
        last_stage ? "must be >= 0 on the last stage" : "must be >= 1");
  check_parallel_ranges(p);
  check(d(layers_per_chunk) <= d(m.layers + p.extra_stage_layers), "layers_per_chunk",
        "cannot exceed the model's layers incl. extra stage layers");

  const OpRates rates = op_rates(s);
  // The last stage also runs the multi-token-prediction modules: one more block each (of the
  // model's last kind), with its all-to-all, projection and head.
  const int64_t mtp = last_stage ? m.mtp_depth : 0;
  const ChunkBlocks blocks = chunk_blocks(s, layers_per_chunk, last_stage);
  const int64_t moe = blocks.moe;
  OpListSeconds t;
  const auto add = [&](const OpListSeconds& x, double times) {
    t.attention += x.attention.scaled(times);
    t.mlp += x.mlp.scaled(times);
  };
  add(price_ops(blocks.moe_ops, rates), d(moe));
  add(price_ops(blocks.dense_ops, rates), d(blocks.dense));
  if (last_stage) add(price_ops(head_ops(s), rates), d(1 + mtp));
  if (mtp > 0) add(price_ops(mtp_ops(s), rates), d(mtp));

  ChunkCost c;
  c.layers = layers_per_chunk;
  c.has_head = last_stage;
  c.attn_forward_seconds = t.attention.forward;
  c.mlp_forward_seconds = t.mlp.forward;
  c.attn_backward_input_seconds = t.attention.backward_input;
  c.attn_backward_weight_seconds = t.attention.backward_weight;
  c.mlp_backward_input_seconds = t.mlp.backward_input;
  c.mlp_backward_weight_seconds = t.mlp.backward_weight;
  c.recompute_seconds = t.attention.recompute + t.mlp.recompute;
  c.tp_comm_seconds = t.attention.communication + t.mlp.communication;
  const auto total = t.total();
  c.kind_seconds = total.by_kind;
  // The mHC kernels' forward share, for the report (already inside the sublayers).
  if (m.residual != ResidualKind::Residual && m.mhc_n > 1) {
    const auto traffic = residual_traffic_per_token(m, s.precision, true, p.recompute_mhc);
    const double tokens = micro_batch_tokens(s) / (p.sequence_parallel ? d(p.tp) : 1.0);
    c.mhc_forward_seconds = 2.0 * d(layers_per_chunk) * tokens * traffic.forward.total() / rates.mhc_bytes_per_second;
  }

  const double tokens = micro_batch_tokens(s);
  if (m.is_moe() && p.ep > 1 && moe > 0) {
    // Each TP rank dispatches its 1/tp of the tokens; the most loaded rank receives (and, in
    // the combine, returns) expert_imbalance x the mean.
    const auto a2a = a2a_time(s, tokens / d(p.tp) * p.expert_imbalance);
    c.dispatch_seconds = d(moe) * a2a.dispatch_seconds();
    c.combine_seconds = d(moe) * a2a.combine_seconds();
  }
  const double send_tokens = p.sequence_parallel ? tokens / d(p.tp) : tokens;
  c.pp_send_bytes = stage_send_bytes(s, send_tokens);
  c.pp_send_seconds = stage_send_seconds(s, c.pp_send_bytes);
  c.activation_bytes = chunk_activations(s, layers_per_chunk, last_stage, blocks);
  return c;
}

}  // namespace mhcsim::cost
