#pragma once
// A transformer layer as the list of operations one GPU runs for one micro-batch, each with its
// FLOPs or GEMM shape, HBM bytes, what it keeps for the backward and whether the scenario's
// recompute scheme replays it; and the prices of those operations in the forward, the backward
// (input and weight gradients apart, as the zero-bubble schedules need) and the recompute.
//
// Shapes follow Megatron-LM's tensor parallelism (Shoeybi et al. 2019): column-parallel QKV and
// FC1, row-parallel output projection and FC2, norms and dropouts replicated over TP unless
// sequence parallelism shards them (Korthikanti et al. 2022, sec. 4.2.2). Saved activations
// reproduce Korthikanti et al.'s Table 2 for a GPT layer (34 s b h + 5 a s^2 b bytes without
// parallelism) and DeepSeek-V3's selective recompute with FP8-cached Linear inputs (report
// 3.2.3, 3.3.3) for MLA + MoE layers.
#include <array>
#include <cstdint>
#include <vector>

#include "mhcsim/cost/gemm_model.h"
#include "mhcsim/cost/rates.h"
#include "mhcsim/specs.h"

namespace mhcsim::cost {

enum class OpKind { Gemm, Attention, MemoryBound, Communication };
inline constexpr int kOpKinds = 4;
const char* to_string(OpKind k);

enum class Sublayer { Attention, Mlp };

// Compute a Communication op runs beside, so that only what outlasts it is exposed.
enum class HidesBehind {
  Nothing,
  PreviousOp,     // CP's K/V ring beside the attention core it feeds
  SublayerGemms,  // TP collectives, OpRates::tp_overlap of them beside their sublayer's GEMMs
};

struct Op {
  const char* name = "";
  OpKind kind = OpKind::MemoryBound;
  Sublayer part = Sublayer::Attention;
  GemmShape gemm;                            // Gemm: the forward GEMM
  bool weight_grad = true;                   // Gemm: false for activation x activation GEMMs (unfused attention)
  double flops = 0;                          // Attention: forward FLOPs
  double bytes = 0;                          // MemoryBound / Attention: forward HBM bytes; Communication:
                                             // bytes each rank sends in the forward
  double backward_bytes = 0;                 // MemoryBound / Attention / Communication: backward bytes
  double saved_bytes = 0;                    // activations kept until the backward (after recompute drops)
  bool recomputed = false;                   // replayed inside the backward by the recompute scheme
  bool mhc_kernel = false;                   // MemoryBound: priced at the mHC kernels' (calibrated) rate
  bool tp_collective = false;                // Communication: a TP all-reduce-equivalent (ring over tp)
  HidesBehind hides = HidesBehind::Nothing;  // Communication: what it overlaps
};

// Tokens of one micro-batch on one GPU's CP rank: micro_batch_seqs x seq_len in training,
// batch_seqs x context_len at prefill, batch_seqs at decode (one new token per sequence).
double micro_batch_tokens(const Scenario& s);

// One transformer layer (dense FFN or MoE) for one micro-batch on one GPU. The MoE dispatch and
// combine all-to-alls are not in the list: the schedules overlap them (ChunkCost prices them).
std::vector<Op> layer_ops(const Scenario& s, bool moe_layer);
// The last stage's final norm, LM head GEMM and cross-entropy for one micro-batch.
std::vector<Op> head_ops(const Scenario& s);
// One multi-token-prediction module's own ops (model.mtp_depth): the norms of the hidden state
// and of the next token's embedding and the projection of their concatenation back to the
// hidden size. Its transformer block is a layer_ops() layer and its head a head_ops() head.
std::vector<Op> mtp_ops(const Scenario& s);
// Activation bytes a layer's input takes per micro-batch on one GPU (what full recompute keeps).
double layer_input_bytes(const Scenario& s);
// HBM bytes per token of assembling MLA's per-head keys for a fused attention core in training
// and prefill (layer_ops' "mla_k_assembly"; the weight-absorbed decode attends the latent and
// has none); 0 for other attention.
double mla_k_assembly_bytes_per_token(const Scenario& s);

// Rates every op is priced with, looked up once per estimate.
struct OpRates {
  GemmRates linear;                               // precision.gemm
  GemmRates bf16;                                 // attention core GEMMs (unfused), LM head, router
  double attention_forward_flops_per_second = 0;  // fused attention core
  double attention_backward_flops_per_second = 0;
  double hbm_bytes_per_second = 0;
  double mhc_bytes_per_second = 0;
  double launch_seconds = 0;
  // Weight gradients land in the gradient dtype; over several micro-batches they accumulate
  // (Megatron's gradient-accumulation fusion into fp32 main_grad, DeepGEMM's "acc" wgrad).
  DType grads = DType::FP32;
  bool accumulate_grads = false;
  LinkRate tp_link;
  double tp = 1;
  double tp_overlap = 0;  // parallel.tp_overlap: the share of a TP collective that may hide
  LinkRate cp_link;
};
OpRates op_rates(const Scenario& s);

// Seconds of a list of ops in each pass, split by sublayer and by kind.
struct PassSeconds {
  double forward = 0;
  double backward_input = 0;  // incl. the recompute
  double backward_weight = 0;
  double recompute = 0;                    // part of backward_input
  double communication = 0;                // TP / CP time inside forward + backward (on the critical path)
  std::array<double, kOpKinds> by_kind{};  // forward + backward + recompute
  PassSeconds& operator+=(const PassSeconds& o);
  PassSeconds scaled(double f) const;
};
struct OpListSeconds {
  PassSeconds attention;
  PassSeconds mlp;
  PassSeconds total() const {
    PassSeconds t = attention;
    t += mlp;
    return t;
  }
};
OpListSeconds price_ops(const std::vector<Op>& ops, const OpRates& r);

// One op alone: t = max(FLOPs / achieved FLOP/s, bytes / achieved bytes/s) + launch per pass
// (GEMMs through gemm_time for the forward, dgrad and wgrad shapes).
struct OpSeconds {
  double forward = 0;
  double backward_input = 0;
  double backward_weight = 0;
  double memory_bound = 0;  // of the above, the FP8 casts around a GEMM
};
OpSeconds op_seconds(const Op& op, const OpRates& r);

}  // namespace mhcsim::cost
