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
  // Narayanan et al. SC21, eq. 3: 72 B s l h^2 (1 + s/(6h) + V/(16 l h)); the 72 is 3 passes
  // (forward, and a backward of twice the forward) x 24 B s l h^2 per forward; full recompute
  // adds a fourth pass: 96.
  const double passes_factor = in.full_recompute ? 96.0 : 72.0;
  return passes_factor * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
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
