#pragma once
// Memory per GPU: weights, gradients and optimizer states under ZeRO-0..3 (Rajbhandari et al.
// 2020) with the precision's dtypes, pipeline factors from the DualPipe table, activations
// per micro-batch chunk with and without mHC recompute.
#include <cstdint>
#include <vector>

#include "mhcsim/specs.h"

namespace mhcsim::cost {

// Parameters the most loaded GPU holds: its pipeline stages' layers (dense layers first, the
// embedding on stage 0, the head on the last stage; two stages per rank in DualPipe and
// DualPipeV, v in interleaved 1F1B), non-expert parameters / TP, routed experts (with
// redundant replicas) / EP.
struct RankParameters {
  double dense = 0;    // replicated over DP (sharded by ZeRO over dp)
  double experts = 0;  // replicated over dp x tp / ep expert-data-parallel ranks
  // Of `dense`: the embedding and the output head, which narrower weights leave in BF16 (DeepSeek-
  // V3's FP8 checkpoint keeps embed_tokens and lm_head in BF16, as its training keeps them out
  // of FP8: report 3.3.1).
  double bf16_kept = 0;
  double total() const { return dense + experts; }
};
RankParameters rank_parameters(const Scenario& s);
// A rank's dense parameters in `weights`, with the embedding and head in BF16 where that is wider.
double dense_weight_bytes(const RankParameters& r, DType weights);
// What each pipeline rank's GPUs hold, rank by rank (after TP and EP).
std::vector<RankParameters> parameters_per_rank(const Scenario& s);

// The ranks holding a copy of the same parameters, over which ZeRO shards them and their
// gradients reduce: DP x CP for dense ones (context-parallel ranks hold the same weights, and
// Megatron's distributed optimizer shards over DP x CP), the DP x TP x CP / EP
// expert-data-parallel ranks for routed experts.
struct ParameterReplicas {
  double dense = 1;
  double experts = 1;
};
ParameterReplicas parameter_replicas(const ParallelSpec& p);

// Weights only, in precision.weights, the embedding and head at least in BF16 (serving and the
// KV fit).
double weight_bytes_per_gpu(const Scenario& s);

struct MemoryEstimate {
  int64_t pipeline_rank = 0;  // the rank priced: the one whose parameter state and activations weigh most
  RankParameters parameters;  // of that rank
  double weight_bytes = 0;
  double grad_bytes = 0;
  double master_weight_bytes = 0;
  double optimizer_bytes = 0;            // Adam m and v
  double activation_bytes = 0;           // peak in-flight chunks x one chunk's activations
  double mhc_recompute_saved_bytes = 0;  // what recompute saves over keeping everything
  int64_t activation_chunks = 0;         // that rank's peak in flight
  int64_t recompute_block = 0;           // L_r used (0 = no mHC recompute)
  double hbm_bytes = 0;
  double total_bytes() const {
    return weight_bytes + grad_bytes + master_weight_bytes + optimizer_bytes + activation_bytes;
  }
  bool fits() const { return total_bytes() <= hbm_bytes; }
};

// Training memory of each pipeline rank: its weights, gradients and optimizer states, and the
// activations its schedule keeps in flight (every chunk at the middle stage's, the most loaded;
// a rank holding the last stage keeps one of its chunks, two in combined 1F1B, whose head and
// MTP modules add theirs: the last stage's backward follows its forward, the loss being there).
std::vector<MemoryEstimate> training_memory_per_rank(const Scenario& s);
// The rank whose memory weighs most.
MemoryEstimate training_memory(const Scenario& s);

// Layers per chunk: ceil((layers + extra) / pipeline_chunks()).
int64_t layers_per_chunk(const Scenario& s);
// The last stage's own layers: what is left after the others took layers_per_chunk each
// (fewer where extra_stage_layers reserve room for its head and MTP modules; may be 0).
int64_t last_chunk_layers(const Scenario& s);
// L_r the scenario uses for a chunk of `layers`: its mhc_recompute_block, or Eq. 20's optimum.
int64_t recompute_block(const Scenario& s, int64_t layers);

}  // namespace mhcsim::cost
