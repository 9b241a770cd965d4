#pragma once
// KV cache size (DeepSeek-V2 paper, KV cache comparison table; FlashMLA cache format; paged
// blocks as in vLLM / FlashMLA) and how many sequences fit on one GPU.
#include <cstdint>
#include <string>
#include <vector>

#include "mhcsim/specs.h"

namespace mhcsim::cost {

// Elements cached per token per layer: MHA 2 n_h d_h, GQA 2 n_g d_h, MQA 2 d_h,
// MLA d_c + d_h^R (one latent "head", shared by all query heads).
double kv_elems_per_token_per_layer(const ModelSpec& m);

// Bytes per token per layer at `dtype`. Elements x bytes, except MLA at FP8, which uses
// FlashMLA's format: d_c e4m3 + one fp32 scale per 128 of d_c + the RoPE part in bf16
// (512 + 16 + 128 = 656 B for DeepSeek-V3).
double kv_bytes_per_token_per_layer(const ModelSpec& m, DType dtype);
double kv_bytes_per_token(const ModelSpec& m, DType dtype);  // x layers
// One GPU's share of a token's cache in the scenario's kv_cache dtype: the stage's layers
// (/ PP) and, over TP, its KV heads (MLA's single latent head is replicated).
double kv_bytes_per_token_per_gpu(const Scenario& s);

// One sequence of `context` tokens, rounded up to whole `block_tokens` pages (0 = unpaged).
double kv_bytes_per_sequence(const ModelSpec& m, DType dtype, int64_t context, int64_t block_tokens);

// Fraction of HBM left for activations and workspace when sizing the cache (vLLM's
// gpu_memory_utilization default 0.9).
inline constexpr double kServeActivationReserveFraction = 0.1;

struct KvFit {
  double hbm_bytes = 0;
  double weight_bytes = 0;        // this GPU's share of the weights
  double reserve_bytes = 0;       // activations / workspace
  double kv_budget_bytes = 0;     // what is left for the cache (>= 0)
  double bytes_per_sequence = 0;  // this GPU's share: / PP, and / TP over the KV heads
  int64_t sequences = 0;          // whole sequences of the context that fit
};

// Serving: weights sharded over TP x PP (experts over EP, plus redundant replicas), in the
// precision's weight dtype; the cache in its kv_cache dtype with the workload's block size.
KvFit kv_fit(const Scenario& s, int64_t context);

// The model's cache next to the other attention layouts at the same layers and heads
// (DeepSeek-V2's KV comparison table), the model's own first. One definition for `kv` and the
// report: MHA keeps K and V for every head, GQA shares them over the model's groups or 8, MQA
// over all heads; for an MLA model their head dim is the mean of its K and V head widths
// ((d_nope + d_rope + d_v) / 2: DeepSeek-V3's "MHA-shaped" cache), and MLA for another model
// uses DeepSeek-V3's d_c 512 + d_R 64.
struct KvLayout {
  AttentionKind attention;
  bool is_model = false;  // the model's own layout
  std::string shape;      // what is cached per token and layer: "latent 512 + RoPE 64", "8 KV heads x 128"
  ModelSpec model;
};
std::vector<KvLayout> kv_layouts(const ModelSpec& m);

}  // namespace mhcsim::cost
