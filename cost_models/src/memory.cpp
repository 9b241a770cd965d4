#include "mhcsim/cost/memory.h"

#include <algorithm>
#include <optional>
#include <string>

#include "mhcsim/cost/chunk_cost.h"
#include "mhcsim/cost/flops.h"
#include "mhcsim/cost/kv_cache.h"
#include "mhcsim/cost/mhc_traffic.h"
#include "mhcsim/cost/pipeline.h"
#include "as_double.h"
#include "check.h"

namespace mhcsim::cost {

namespace {
bool is_mhc(const ModelSpec& m) { return m.residual != ResidualKind::Residual && m.mhc_n > 1; }

void validate_parallel(const Scenario& s) {
  const auto& p = s.parallel;
  check_parallel_ranges(p);
  check(p.pp <= s.model.layers + p.extra_stage_layers, "parallel.pp",
        [&] { return "cannot exceed the number of layers (" + std::to_string(s.model.layers) + ")"; });
  if (s.model.is_moe())
    check(p.ep <= s.model.routed_experts + p.redundant_experts, "parallel.ep", "cannot exceed the number of experts");
}

}  // namespace

int64_t layers_per_chunk(const Scenario& s) {
  validate_parallel(s);
  const int64_t layers = s.model.layers + s.parallel.extra_stage_layers;
  const int64_t stages = pipeline_chunks(s.parallel.schedule, s.parallel.pp, s.parallel.virtual_stages);
  check(layers >= stages, "parallel.pp", [&] {
    return "needs at least one layer per pipeline stage (" + std::to_string(layers) + " layers over " +
           std::to_string(stages) + " stages)";
  });
  return (layers + stages - 1) / stages;
}

int64_t last_chunk_layers(const Scenario& s) {
  const int64_t per_chunk = layers_per_chunk(s);
  const int64_t stages = pipeline_chunks(s.parallel.schedule, s.parallel.pp, s.parallel.virtual_stages);
  return std::clamp<int64_t>(s.model.layers - (stages - 1) * per_chunk, 0, per_chunk);
}

int64_t recompute_block(const Scenario& s, int64_t layers) {
  if (!is_mhc(s.model) || !s.parallel.recompute_mhc) return 0;
  const int64_t mhc_layers = 2 * layers;  // blocks never cross pipeline stages (paper 4.3.2)
  if (s.parallel.mhc_recompute_block > 0) return std::min(s.parallel.mhc_recompute_block, mhc_layers);
  return mhc_optimal_recompute_block(s.model.mhc_n, mhc_layers);
}

namespace {
// Parameters of stage `i` of `stages`, before TP / EP sharding: its layers (in model order, so
// DeepSeek's dense layers sit on stage 0; the last stage takes what is left, as step.cpp cuts
// them), the embedding on stage 0, the final norm and the output head on the last stage
// (Megatron-LM's and DeepSeek's placement). Per-layer shares come from parameter_count.
RankParameters stage_parameters(const ModelSpec& m, const ParameterCount& c, int64_t i, int64_t stages,
                                int64_t per_stage, double expert_replicas) {
  const int64_t first = std::min(i * per_stage, m.layers);
  const int64_t end = i == stages - 1 ? m.layers : std::min(first + per_stage, m.layers);
  const int64_t dense_end = m.is_moe() ? std::min<int64_t>(m.dense_layers, m.layers) : m.layers;
  const double dense = d(std::max<int64_t>(0, std::min(end, dense_end) - first));
  const double moe = d(end - first) - dense;
  const double layers = d(m.layers), h = d(m.hidden);
  // The MTP modules sit on the last stage with the output head they share (DeepSeek-V3 report
  // 3.2.2): each a block of the model's last kind, two norms and a 2h -> h projection.
  const double mtp = i == stages - 1 ? d(m.mtp_depth) : 0.0;
  const double mtp_moe = m.moe_layers() > 0 ? mtp : 0.0, mtp_dense = mtp - mtp_moe;
  RankParameters r;
  r.dense = (dense + moe + mtp) * ((c.attention + c.mhc) / layers + 2.0 * h) + mtp * (2.0 * h * h + 2.0 * h);
  if (dense_end > 0) r.dense += (dense + mtp_dense) * c.dense_ffn / d(dense_end);
  if (m.moe_layers() > 0) {
    r.dense += (moe + mtp_moe) * (c.shared_experts + c.gates) / d(m.moe_layers());
    r.experts = (moe + mtp_moe) * c.routed_experts / d(m.moe_layers()) * expert_replicas;
  }
  if (i == 0) r.dense += c.embedding, r.bf16_kept += c.embedding;
  if (i == stages - 1) r.dense += c.head + h, r.bf16_kept += c.head;
  return r;
}
}  // namespace

std::vector<RankParameters> parameters_per_rank(const Scenario& s) {
  validate_parallel(s);
  const auto& p = s.parallel;
  const auto& m = s.model;
  const auto count = parameter_count(m);
  const double replicas = m.is_moe() ? 1.0 + d(p.redundant_experts) / d(m.routed_experts) : 1.0;
  const int64_t stages = pipeline_chunks(p.schedule, p.pp, p.virtual_stages);
  const int64_t per_stage = layers_per_chunk(s);
  std::vector<RankParameters> ranks(static_cast<size_t>(p.pp));
  for (int64_t r = 0; r < p.pp; ++r) {
    RankParameters& held = ranks[static_cast<size_t>(r)];
    for_each_stage_of_rank(p.schedule, p.pp, p.virtual_stages, r, [&](int64_t stage) {
      const auto part = stage_parameters(m, count, stage, stages, per_stage, replicas);
      held.dense += part.dense;
      held.experts += part.experts;
      held.bf16_kept += part.bf16_kept;
    });
    held.dense /= d(p.tp);
    held.bf16_kept /= d(p.tp);
    held.experts /= d(p.ep);
  }
  return ranks;
}

RankParameters rank_parameters(const Scenario& s) {
  // Compared on what a GPU holds, after TP and EP: before it, a rank of MoE layers (each 11 B
  // routed parameters in DeepSeek-V3) outweighed the first rank's embedding and head, which
  // EP does not divide.
  const auto ranks = parameters_per_rank(s);
  return *std::max_element(ranks.begin(), ranks.end(),
                           [](const RankParameters& a, const RankParameters& b) { return a.total() < b.total(); });
}

ParameterReplicas parameter_replicas(const ParallelSpec& p) {
  return {d(p.dp * p.cp), std::max(1.0, d(p.dp * p.tp * p.cp) / d(p.ep))};
}

double dense_weight_bytes(const RankParameters& r, DType weights) {
  return r.dense * bytes_per_element(weights) +
         r.bf16_kept * std::max(0.0, bytes_per_element(DType::BF16) - bytes_per_element(weights));
}

double weight_bytes_per_gpu(const Scenario& s) {
  // The rank with the most bytes: one holding the embedding or head in BF16 may outweigh one
  // with more parameters.
  const DType w = s.precision.weights;
  double most = 0;
  for (const auto& params : parameters_per_rank(s))
    most = std::max(most, dense_weight_bytes(params, w) + params.experts * bytes_per_element(w));
  return most;
}

std::vector<MemoryEstimate> training_memory_per_rank(const Scenario& s) {
  const auto& p = s.parallel;
  const auto& pr = s.precision;
  const int64_t layers = layers_per_chunk(s);
  check(s.workload.micro_batch_seqs * s.workload.seq_len >= 1, "workload.seq_len", "micro-batch tokens must be >= 1");
  const int64_t last_stage = pipeline_chunks(p.schedule, p.pp, p.virtual_stages) - 1;
  MemoryEstimate base;
  base.hbm_bytes = s.hardware.gpu.hbm_bytes;
  base.recompute_block = recompute_block(s, layers);
  // One micro-batch's activations of a middle chunk and of the last stage's, and what a rank
  // keeps of them with `chunks` in flight. The last stage's backward follows its forward (the
  // loss is there), so its chunks are short-lived: one in flight, two in combined 1F1B, whose
  // F&B slot pairs the next micro-batch's forward with this one's backward.
  struct ChunkBytes {
    double middle, last;
  };
  const auto chunk_bytes = [&](const Scenario& v) {
    return ChunkBytes{chunk_activation_bytes(v, layers), chunk_activation_bytes(v, last_chunk_layers(v), true)};
  };
  const auto kept = [&](const ChunkBytes& c, double chunks, bool holds_last) {
    const double last_alive = holds_last ? std::min(chunks, p.combined_1f1b ? 2.0 : 1.0) : 0.0;
    return std::max(chunks * c.middle, (chunks - last_alive) * c.middle + last_alive * c.last);
  };
  const ChunkBytes bytes = chunk_bytes(s);
  // mHC recompute's saving: the same rank's activations without it, less those with it.
  std::optional<ChunkBytes> without_recompute;
  if (base.recompute_block > 0) {
    Scenario off = s;
    off.parallel.recompute_mhc = false;
    without_recompute = chunk_bytes(off);
  }
  // ZeRO shards over the ranks holding the same parameters.
  const auto replicas = parameter_replicas(p);
  const auto params_of = parameters_per_rank(s);
  std::vector<MemoryEstimate> ranks;
  ranks.reserve(params_of.size());
  for (int64_t r = 0; r < p.pp; ++r) {
    const auto& params = params_of[static_cast<size_t>(r)];
    const auto sharded = [&](int stage) {
      return p.zero_stage >= stage ? params.dense / replicas.dense + params.experts / replicas.experts : params.total();
    };
    MemoryEstimate& e = ranks.emplace_back(base);
    e.pipeline_rank = r;
    e.parameters = params;
    const bool zero3 = p.zero_stage >= 3;
    e.weight_bytes = dense_weight_bytes(params, pr.weights) / (zero3 ? replicas.dense : 1.0) +
                     params.experts * bytes_per_element(pr.weights) / (zero3 ? replicas.experts : 1.0);
    e.grad_bytes = sharded(2) * bytes_per_element(pr.grads);
    e.master_weight_bytes = sharded(1) * bytes_per_element(pr.master_weights);
    e.optimizer_bytes = 2.0 * sharded(1) * bytes_per_element(pr.optimizer_states);
    e.activation_chunks =
        pipeline_activation_chunks(p.schedule, p.pp, p.micro_batches, p.virtual_stages, p.combined_1f1b, r);
    const double chunks = d(e.activation_chunks);
    bool holds_last = false;
    for_each_stage_of_rank(p.schedule, p.pp, p.virtual_stages, r,
                           [&](int64_t stage) { holds_last = holds_last || stage == last_stage; });
    e.activation_bytes = kept(bytes, chunks, holds_last);
    if (without_recompute)
      e.mhc_recompute_saved_bytes = kept(*without_recompute, chunks, holds_last) - e.activation_bytes;
  }
  return ranks;
}

MemoryEstimate training_memory(const Scenario& s) {
  // The fullest rank. ZeRO shards dense and expert parameters over different groups, and the
  // 1F1B family keeps the most activations on rank 0 while the head and the MTP modules sit on
  // the last rank, so no rank need hold both worst cases (adding them overstated).
  const auto ranks = training_memory_per_rank(s);
  return *std::max_element(ranks.begin(), ranks.end(), [](const MemoryEstimate& a, const MemoryEstimate& b) {
    return a.total_bytes() < b.total_bytes();
  });
}

}  // namespace mhcsim::cost
