#include "mhcsim/validate/megatron_flops.h"

#include "mhcsim/error.h"

namespace mhcsim::validate {

double megatron_flops_per_iteration(const MegatronFlopsInputs& in) {
  require(in.batch_seqs > 0 && in.seq_len > 0 && in.layers > 0 && in.hidden > 0 && in.vocab > 0, "model",
          "Megatron eq. 3 needs a batch, sequence length, layers, hidden size and vocabulary > 0");
  const double B = static_cast<double>(in.batch_seqs);
  const double s = static_cast<double>(in.seq_len);
  const double l = static_cast<double>(in.layers);
  const double h = static_cast<double>(in.hidden);
  const double V = static_cast<double>(in.vocab);
  // Per forward, 24 B s l h^2 (1 + s/(6h)) in the layers and 2 B s h V in the logits; the
  // backward is twice the forward. Full recompute runs the layers' forward once more, not the
  // logits': 96 B s l h^2 (1 + s/(6h) + V/(16 l h)), SC21's eq. 3. Without it, 72 B s l h^2
  // (1 + s/(6h) + V/(12 l h)), the model FLOPs of Korthikanti et al. 2022 (appendix) and
  // Megatron-Core's num_floating_point_operations for this model.
  const double layer_passes = in.full_recompute ? 4.0 : 3.0;
  return layer_passes * 24.0 * B * s * l * h * h * (1.0 + s / (6.0 * h)) + 3.0 * 2.0 * B * s * h * V;
}

int64_t global_batch_seqs(const Scenario& s) {
  if (s.workload.global_batch_seqs > 0) return s.workload.global_batch_seqs;
  return s.parallel.micro_batches * s.workload.micro_batch_seqs * s.parallel.dp;
}

MegatronFlopsInputs megatron_flops_inputs(const Scenario& s) {
  const auto& m = s.model;
  require(!m.is_moe() && m.attention != AttentionKind::MLA, "model",
          "tflops_per_gpu uses Megatron's eq. 3, which counts dense GPT models only (no MoE, no MLA)");
  return {global_batch_seqs(s),
          s.workload.seq_len,
          m.layers,
          m.hidden,
          m.vocab,
          s.parallel.activation_recompute == ActivationRecompute::Full};
}

}  // namespace mhcsim::validate
