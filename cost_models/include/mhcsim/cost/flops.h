#pragma once
// Parameter counts and forward FLOPs per token of a ModelSpec (DeepSeek-V3 report sec. 2 and
// config.json for MLA and DeepSeekMoE; mHC paper Eq. 14-16 for the mHC extra). A matmul of a
// k x n weight costs 2kn FLOPs per token; training is 3x the forward (backward = 2x).
#include <cstdint>

#include "mhcsim/specs.h"

namespace mhcsim::cost {

// Checks the model before any evaluation: sizes > 0, top-k <= experts, dense_layers <= layers,
// MLA/MHA dims present. Throws SpecError naming the key.
void validate_model(const ModelSpec& m);

struct ParameterCount {
  double embedding = 0;       // vocab x hidden
  double head = 0;            // output projection (0 when tied)
  double attention = 0;       // all layers, incl. MLA's low-rank norms
  double dense_ffn = 0;       // the dense_layers SwiGLU FFNs
  double routed_experts = 0;  // all routed experts of all MoE layers
  double shared_experts = 0;
  double gates = 0;  // router weights (+ per-expert bias)
  double norms = 0;  // the two RMSNorms per layer and the final norm
  double mhc = 0;    // phi (nC x (n^2+2n)), biases and the 3 gates per mHC layer

  double total() const {
    return embedding + head + attention + dense_ffn + routed_experts + shared_experts + gates + norms + mhc;
  }
  // Parameters a token computes with: routed experts scaled by top_k / experts, the input
  // embedding (a lookup) left out; mHC paper Table 5's 27B "4.14B active" counts this way.
  double activated(const ModelSpec& m) const;
  double expert_parameters() const { return routed_experts; }  // sharded over EP
};

ParameterCount parameter_count(const ModelSpec& m);

double attention_parameters_per_layer(const ModelSpec& m);
// MLA's up-projections from the q and kv latents (W_UQ incl. W_QR, W_UK, W_UV): the GEMMs that
// DeepSeek-V3's selective recompute replays in the backward. 0 for MHA/GQA/MQA.
double mla_up_projection_parameters_per_layer(const ModelSpec& m);
double expert_parameters(const ModelSpec& m);  // one routed or shared expert (SwiGLU)

// Forward FLOPs per token over the whole model.
struct TokenFlops {
  double attention_linear = 0;         // q/kv/o projections
  double attention_core = 0;           // QK^T and PV over the context
  double attention_up_projection = 0;  // MLA's W_UQ, W_UK, W_UV: part of attention_linear
  double mlp = 0;                      // dense FFN, active routed + shared experts, gates
  double head = 0;                     // output projection
  double mhc = 0;                      // mHC coefficient matmul, Sinkhorn, apply H_pre / F_post,res
  double linear() const { return attention_linear + mlp + head; }
  double total() const { return attention_linear + attention_core + mlp + head + mhc; }
};

// `context` tokens attended per query; causal training attends (seq+1)/2 on average.
TokenFlops forward_flops_per_token(const ModelSpec& m, double context);
double average_causal_context(int64_t seq_len);  // (seq+1)/2

// Training FLOPs per token (forward + backward = 3x forward) at sequence length seq_len;
// causal = false counts the full seq x seq attention as the ISCA 2025 MFU's "non-causal".
double training_flops_per_token(const ModelSpec& m, int64_t seq_len, bool causal);

}  // namespace mhcsim::cost
