#pragma once
// The time of one serving iteration for any batch shape: vidur's execution-time predictor, the
// one place the serving simulator (serving/) prices a batch. Built once per serve-mode scenario,
// then each query is a few table lookups and multiplies (well under a microsecond).
//
// A replica is tp x pp GPUs; with expert parallelism attention runs data-parallel, one replica
// per attention rank, and the EP group's replicas meet in every MoE layer's all-to-all (DeepSeek's
// deployment, open-infra day 6). One iteration runs the batch's prefill chunks and decode tokens
// through every layer once:
//   linear    the layer's GEMMs (incl. FP8 casts), memory-bound ops and TP collectives, priced op
//             by op (layer_ops.h) over a scenario copy with that many tokens and tabulated at
//             construction over a geometric grid of token counts, interpolated between. Small
//             batches stream the weights (routed experts: only those the EP group's tokens hit),
//             large ones are compute bound; the grid carries both.
//   attention prefill: the FlashAttention core over each chunk token's attended keys (cached
//             prefix included); decode: the KV cache read (MLA weight-absorbed in FlashMLA's
//             accounting, kernel_bytes.h), each the longer of its FLOPs and its bytes.
//   LM head   on the rows that sample a token.
//   EP        dispatch + combine per MoE layer: DeepEP's low-latency kernels for decode-only
//             batches (published per-EP latencies, or a calibrated fit), the normal kernels
//             (a2a_time) when prefill tokens are in the batch.
//   overlap   with parallel.overlap > 0 and EP, the batch runs as two micro-batches whose
//             all-to-all hides behind the other's compute up to that fraction (DeepSeek's
//             two-micro-batch overlap; `simulate` places it layer by layer, sim/README.md)
//             where that is faster than one: each half streams the weights again;
//             with PP, pp micro-batches keep the stages busy, one at a time on each stage, so
//             nothing hides their all-to-all.
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "mhcsim/cost/gemm_model.h"
#include "mhcsim/specs.h"

namespace mhcsim::cost {

// The work of one iteration on one replica.
struct BatchShape {
  double prefill_tokens = 0;           // P: prompt tokens computed (prefix-cache hits excluded)
  double prefill_attended_tokens = 0;  // sum over those tokens of the keys each attends (causal,
                                       // the cached prefix and earlier chunks included)
  double decode_seqs = 0;              // D: sequences decoding one token each
  double decode_context_tokens = 0;    // K: cached tokens those sequences read
  double sampled_seqs = 0;             // rows through the LM head: D + prompts finishing prefill
  double tokens() const { return prefill_tokens + decode_seqs; }
};

// `seqs` prompts of `len` tokens each, the first `cached` of each from the prefix cache:
// attended (causally, by every computed token), not computed; their last tokens sample.
BatchShape prompt_batch(double seqs, double len, double cached = 0);
// `seqs` sequences decoding one token each over `context_len` cached tokens.
BatchShape decode_batch(double seqs, double context_len);

struct IterationTime {
  int64_t micro_batches = 1;
  bool overlapped = false;          // two micro-batches on the same GPUs, each hiding the other's
                                    // all-to-all (else pp through a pipeline, or one)
  bool low_latency_a2a = false;     // DeepEP low-latency kernels (decode-only batch)
  double linear_seconds = 0;        // GEMMs incl. FP8 casts and streamed weights
  double memory_bound_seconds = 0;  // norms, RoPE, router, permute / combine, residual or mHC
  double tp_comm_seconds = 0;       // TP all-reduces, on the critical path
  double attention_seconds = 0;     // prefill core + decode KV read
  double head_seconds = 0;          // LM head on the sampled rows
  double a2a_seconds = 0;           // EP dispatch + combine, all micro-batches
  double dispatch_seconds = 0;      // of which dispatch
  // Of linear + memory-bound + TP, what the attention sublayers run (their projections, norms,
  // all-reduces and MLA's key assembly: layer_ops' Sublayer::Attention), before each MoE
  // layer's dispatch; the simulator places the two micro-batches' pieces by it (sim/serving.h).
  double attention_sublayer_seconds = 0;
  double exposed_a2a_seconds = 0;  // what the other micro-batch's compute does not hide
  double pp_send_seconds = 0;
  double seconds = 0;
  double compute_seconds() const {
    return linear_seconds + memory_bound_seconds + tp_comm_seconds + attention_seconds + head_seconds;
  }
};

// DeepEP low-latency kernels on H800 with CX7 400 Gb/s IB, 128 tokens per rank, hidden 7168,
// top-8, FP8 dispatch and BF16 combine (deepseek-ai/DeepEP README, now docs/legacy.md,
// "Low-latency kernels with pure RDMA"; DESIGN.md "Serving under load").
struct LowLatencyA2aPoint {
  int64_t ep = 0;
  double dispatch_us = 0;
  double combine_us = 0;
};
inline constexpr int64_t kLowLatencyReferenceTokens = 128;
std::span<const LowLatencyA2aPoint> deepep_low_latency_table();

struct A2aPhaseSeconds {
  double dispatch = 0;
  double combine = 0;
};
// One MoE layer's low-latency dispatch and combine for `tokens` tokens per rank. The kernels are
// RDMA-bandwidth bound at 128 tokens (the table's 39-127 GB/s is its bytes over its latency), so
// the time scales with the payload: t = alpha + (t_128 - alpha) x payload / payload_128, with
// alpha the NIC's per-message latency, t_128 interpolated in log2(EP) between the table's rows
// (clamped at EP8 and EP256), and the payload the model's selections at the dispatch / combine
// dtypes against the table's DeepSeek-V3 payload. A calibration profile's collectives
// "alltoall_ll_dispatch" / "alltoall_ll_combine" (alpha + bytes / bus bandwidth) replace it.
A2aPhaseSeconds low_latency_a2a_seconds(const Scenario& s, double tokens);

// GPUs of one deployment unit: the EP group (its replicas meet in every MoE layer's all-to-all)
// in whole nodes, or the replica (tp x pp GPUs) when that is larger or there is no EP.
int64_t deployment_unit_gpus(const Scenario& s);

class ServingStepModel {
 public:
  // Serve-mode scenarios only; SpecError on impossible specs. Tabulates every batch size up to
  // kTableMaxTokens (milliseconds): for the serving simulator's many queries.
  explicit ServingStepModel(const Scenario& s);
  // One batch, priced at exactly its micro-batch size without the table (tens of microseconds):
  // what `step`, sweeps and `validate` show, the same number the simulator's table gives there.
  static IterationTime time_once(const Scenario& s, const BatchShape& b);

  IterationTime time(const BatchShape& b) const;
  double seconds(const BatchShape& b) const { return time(b).seconds; }
  // Whether a batch takes DeepEP's low-latency kernels: what `a2a` shows for a serving scenario
  // (how it splits is IterationTime::micro_batches).
  static bool low_latency(const Scenario& s, const BatchShape& b) { return Split(s).low_latency(b); }

  int64_t gpus_per_replica() const { return gpus_per_replica_; }
  // Paged KV cache of one replica: the memory model's budget (HBM - weights - reserve, kv_fit)
  // over one block's bytes on one GPU; 0 when the weights leave no room.
  int64_t kv_blocks() const { return kv_blocks_; }
  int64_t kv_block_tokens() const { return kv_block_tokens_; }
  // Cached bytes of one token on one GPU of the replica (what a KV transfer moves per GPU).
  double kv_bytes_per_token_per_gpu() const { return kv_bytes_per_token_per_gpu_; }
  // Largest micro-batch the linear table was built for; beyond it the last slope extrapolates.
  static constexpr int64_t kTableMaxTokens = int64_t{1} << 17;

 private:
  // Per micro-batch of T tokens through the stage's layers, at grid points T.
  struct LinearTable {
    std::vector<double> tokens;
    // gemm, memory-bound, TP collectives, and the attention sublayers' part of those three
    std::vector<std::array<double, 4>> seconds;
    std::array<double, 4> at(double t) const;
  };
  struct Attention {
    double layers = 0;                              // the stage's layers
    double prefill_flops_per_key = 0;               // per attended key and layer
    double prefill_bytes_per_token = 0;             // Q, K, V, O per layer
    double prefill_k_assembly_bytes_per_token = 0;  // MLA's per-head keys, per layer
    double prefill_flops_per_second = 0;
    double decode_flops_per_key = 0;     // per cached token read and layer
    double decode_flops_per_seq = 0;     // per decode sequence and layer (MLA's q side)
    double decode_kv_bytes_per_key = 0;  // all the stage's layers
    double decode_q_bytes_per_seq = 0;   // all the stage's layers
    double decode_flops_per_second = 0;
    double decode_bytes_per_second = 0;
    double hbm_bytes_per_second = 0;
    double launch_seconds = 0;
  };
  // t = fixed + per_token x tokens: each link's share of an all-to-all and the stage send are
  // alpha-beta in the tokens, so two evaluations at construction give every later answer.
  struct Linear {
    double fixed = 0;
    double per_token = 0;
    double at(double tokens) const { return tokens > 0 ? fixed + per_token * tokens : 0.0; }
  };
  // DeepEP's normal kernels forward NVLink and IB at once: each direction takes the slower link
  // (a2a_time), a maximum of two lines per direction.
  struct NormalA2a {
    Linear dispatch_nvlink, dispatch_nic, combine_nvlink, combine_nic;
    A2aPhaseSeconds at(double tokens) const;
  };
  struct LowLatencyA2a {
    Linear dispatch, combine;
    A2aPhaseSeconds at(double tokens) const { return {dispatch.at(tokens), combine.at(tokens)}; }
  };
  // How an iteration may split: pp micro-batches through a pipeline; with EP and overlap, two
  // overlapped ones once there are two tokens to split (DeepSeek's two-micro-batch overlap),
  // taken when faster (time()); decode-only batches with EP take DeepEP's low-latency kernels
  // and leave every SM to compute.
  struct Split {
    int64_t pp = 1;
    bool ep = false;
    double overlap = 0;
    explicit Split(const Scenario& s);
    bool can_pair(double tokens) const { return pp == 1 && ep && overlap > 0 && tokens >= 2; }
    bool low_latency(const BatchShape& b) const { return ep && b.prefill_tokens <= 0; }
  };
  // The batch in `micro_batches` equal parts (pp, 2 overlapped, or 1).
  IterationTime time_split(const BatchShape& b, int64_t micro_batches) const;
  enum Tables { kNormalSms = 1, kAllSms = 2, kBothTables = 3 };
  // The linear tables at these micro-batch token counts (ascending) only, and only those asked.
  ServingStepModel(const Scenario& s, const std::vector<double>& grid, Tables tables);
  double attention_seconds(const BatchShape& b, bool all_sms) const;
  double head_seconds(double rows, bool all_sms) const;

  Split split_;
  double moe_layers_ = 0;  // the stage's MoE layers (the most loaded stage)
  LinearTable normal_;     // SMs shared with DeepEP's normal kernels
  LinearTable all_sms_;    // decode-only: low-latency kernels leave every SM to compute
  Attention attention_;
  double fewer_sms_ = 1;                  // compute_sm_fraction with normal kernels
  GemmRates head_normal_, head_all_sms_;  // BF16 LM head
  int64_t vocab_per_gpu_ = 0;
  double hidden_ = 0, act_bytes_ = 2;
  NormalA2a a2a_normal_;  // the stage's MoE layers, per micro-batch
  LowLatencyA2a a2a_low_latency_;
  Linear pp_send_;
  int64_t gpus_per_replica_ = 1;
  int64_t kv_blocks_ = 0;
  int64_t kv_block_tokens_ = 1;
  double kv_bytes_per_token_per_gpu_ = 0;
};

}  // namespace mhcsim::cost
