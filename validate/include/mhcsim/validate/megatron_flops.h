#pragma once
// Model FLOPs of one training iteration as Megatron-LM counts them (Narayanan et al., SC21,
// "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", eq. 3):
//
//   F = 96 B s l h^2 (1 + s / (6 h) + V / (16 l h))
//
// for a GPT model with l layers, hidden size h, vocabulary V, B sequences of s tokens per
// iteration, a GeLU MLP of 4h and full attention, with full activation recomputation: the
// paper counts the recomputed forward of the layers too (its Table 1 and the per-GPU teraFLOP/s
// it reports do). Without recomputation the count is 72 B s l h^2 (1 + s / (6 h) + V / (12 l h))
// (Korthikanti et al. 2022, appendix; Megatron-Core's num_floating_point_operations for this
// model): the logits run three passes either way. Only `mhcsim validate` uses this count: to turn a
// predicted step time into the per-GPU teraFLOP/s the paper publishes, with the paper's own
// accounting rather than the cost model's FLOP count.
#include <cstdint>

#include "mhcsim/specs.h"

namespace mhcsim::validate {

struct MegatronFlopsInputs {
  int64_t batch_seqs = 0;       // B: sequences per iteration (global batch)
  int64_t seq_len = 0;          // s
  int64_t layers = 0;           // l
  int64_t hidden = 0;           // h
  int64_t vocab = 0;            // V
  bool full_recompute = false;  // the layers' forward counted twice
};

// Eq. 3, FLOPs per iteration.
double megatron_flops_per_iteration(const MegatronFlopsInputs& in);

// Sequences per optimizer step: workload.global_batch_seqs when given, else
// micro_batches x micro_batch_seqs x DP.
int64_t global_batch_seqs(const Scenario& s);

// Eq. 3's inputs from a training scenario (full_recompute = parallel.activation_recompute is
// Full). SpecError when the scenario is not a dense GPT-like training run (MoE, MLA).
MegatronFlopsInputs megatron_flops_inputs(const Scenario& s);

}  // namespace mhcsim::validate
