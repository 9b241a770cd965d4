#pragma once
// Value types describing one configuration. Every quantity's unit is in its name. The cost
// model, the simulator and the reports are pure functions over these.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mhcsim/calibration.h"
#include "mhcsim/dtype.h"

namespace mhcsim {

struct GpuSpec {
  std::string name;            // catalog key, e.g. "H800"
  std::string source;          // datasheet the numbers come from
  double hbm_bytes = 0;        // usable HBM capacity
  double hbm_gb_per_s = 0;     // peak HBM bandwidth, GB/s (decimal)
  double bf16_tflops = 0;      // dense BF16 tensor-core peak
  double fp8_tflops = 0;       // dense FP8 tensor-core peak
  double fp4_tflops = 0;       // dense FP4 tensor-core peak (0: none or not published)
  double fp32_tflops = 0;      // non-tensor FP32 peak
  double nvlink_gb_per_s = 0;  // NVLink bandwidth per GPU per direction, GB/s
  int sm_count = 0;
  double l2_bytes = 0;
  double tdp_watts = 0;
};

struct HardwareSpec {
  GpuSpec gpu;
  int64_t gpus = 0;       // GPUs in the job (= tp x pp x dp)
  int gpus_per_node = 8;  // GPUs per server: the unit nodes are counted and bought in
  // GPUs one NVLink fabric joins (72 in a GB200 NVL72 rack of 4-GPU trays); 0 = one server.
  // The network model sends traffic inside the domain over NVLink and across it over the NICs.
  int nvlink_domain_gpus = 0;
  double nic_gb_per_s_per_gpu = 0;  // inter-node (IB/RoCE) bandwidth per GPU per direction, GB/s
  double nvlink_latency_us = 0;     // per-message latency (alpha) intra-node
  double nic_latency_us = 0;        // per-message latency (alpha) inter-node
  double price_per_gpu_hour = 0;    // USD, for cost reports; 0 = not priced
  std::string price_source;         // where the price comes from, or why it is an assumption
  // Power usage effectiveness of the facility: its power / the IT equipment's (The Green Grid,
  // "PUE: a comprehensive examination of the metric", WP#49, 2012). 1 = the GPUs' board power
  // alone, what energy figures count unless hardware.pue says otherwise.
  double pue = 1.0;
  int nvlink_domain() const { return nvlink_domain_gpus > 0 ? nvlink_domain_gpus : gpus_per_node; }
};

enum class AttentionKind { MHA, GQA, MQA, MLA };
enum class ResidualKind { Residual, HC, MHC };
// Feed-forward block: SwiGLU (gate, up, down: 3 weight matrices; LLaMA, DeepSeek) or the
// original Transformer's GeLU MLP (up, down: 2 matrices; GPT-3, Megatron-LM).
enum class MlpKind { SwiGLU, GeLU };

struct ModelSpec {
  std::string name;
  int64_t layers = 0;
  int64_t hidden = 0;
  int64_t vocab = 0;

  AttentionKind attention = AttentionKind::MHA;
  int64_t heads = 0;
  int64_t kv_heads = 0;  // GQA groups; = heads for MHA, 1 for MQA
  int64_t head_dim = 0;  // per-head dim for MHA/GQA/MQA
  // MLA (DeepSeek-V2/V3): joint KV compression with decoupled RoPE key.
  int64_t q_lora_rank = 0;   // 0 = no query compression
  int64_t kv_lora_rank = 0;  // d_c
  int64_t qk_nope_head_dim = 0;
  int64_t qk_rope_head_dim = 0;  // d_h^R
  int64_t v_head_dim = 0;

  int64_t dense_layers = 0;       // leading layers with a dense FFN (all layers when no experts)
  int64_t ffn_hidden = 0;         // dense FFN intermediate size
  MlpKind mlp = MlpKind::SwiGLU;  // dense FFN and experts
  bool dropout = false;           // hidden and attention dropout (GPT-3 / Megatron-LM runs: 0.1;
                                  // DeepSeek and LLaMA train without): masks are kept for backward
  int64_t routed_experts = 0;     // 0 = dense model
  int64_t shared_experts = 0;
  int64_t top_k = 0;
  int64_t expert_ffn_hidden = 0;
  int64_t expert_groups = 1;         // n_group for group-limited routing
  int64_t max_groups_per_token = 1;  // topk_group

  ResidualKind residual = ResidualKind::Residual;
  int64_t mhc_n = 1;            // expansion rate n of the residual stream (1 = plain residual)
  int64_t sinkhorn_iters = 20;  // t_max
  bool tied_embeddings = false;
  // Multi-token prediction modules (DeepSeek-V3 report sec. 2.2, D = 1 in its training): each a
  // transformer block, a projection of [hidden; embedding] and the shared output head again, on
  // the last pipeline stage. Training cost only.
  int64_t mtp_depth = 0;

  bool is_moe() const { return routed_experts > 0; }
  int64_t moe_layers() const { return is_moe() ? layers - dense_layers : 0; }
  bool operator==(const ModelSpec&) const = default;
};

// The FP8 GEMM library a run used. Fine-grained-scaled FP8 GEMMs differ by library more than
// BF16 ones do: DeepGEMM (2025-02) beats DeepSeek's earlier CUTLASS 3.6-based kernels, which
// trained DeepSeek-V3 (2024), by 1.1-1.2x on training shapes (cost/rates.h).
enum class Fp8GemmKernels { DeepGemm, Cutlass36 };

struct PrecisionSpec {
  DType gemm = DType::BF16;         // tensor-core input precision of the big GEMMs
  DType activations = DType::BF16;  // stored activations / residual stream
  DType weights = DType::BF16;      // working copy of the weights
  DType master_weights = DType::FP32;
  DType grads = DType::BF16;
  DType optimizer_states = DType::FP32;  // Adam m and v
  DType kv_cache = DType::BF16;
  DType dispatch = DType::BF16;                                // MoE dispatch payload (FP8 in DeepSeek-V3, plus scales)
  DType combine = DType::BF16;                                 // MoE combine payload
  int64_t fp8_tile = 128;                                      // 1x128 activation tiles -> one fp32 scale per 128 elems
  Fp8GemmKernels fp8_gemm_kernels = Fp8GemmKernels::DeepGemm;  // which FP8 GEMM library ran
};

enum class Schedule { OneF1B, Interleaved1F1B, ZB1P, DualPipe, DualPipeV };

// What a layer keeps for its backward pass. Selective is DeepSeek-V3's scheme (report 3.2.3 and
// 3.3.3): RMSNorm and the MLA up-projections are recomputed, SwiGLU keeps only its input, and
// with FP8 GEMMs the inputs of the Linear layers are cached in FP8. Full keeps only the layer
// input and recomputes the whole layer. Attention is Megatron-LM's selective recompute
// (Korthikanti et al. 2022, sec. 4.2): only the attention core (QK^T, softmax, dropout, PV) is
// recomputed, which drops the 5as/h term of the activation memory.
enum class ActivationRecompute { None, Selective, Full, Attention };

// Distinct stages of the layer split that one micro-batch visits on each rank: v for
// interleaved 1F1B, 2 for DualPipeV (P ranks hold 2P stages, a V), 1 otherwise. DualPipe's
// ranks hold stages r and PP-1-r of a PP-stage split: two *copies* (DualPipe README "2x
// parameters"), one per direction, so each micro-batch still sees one stage per rank.
constexpr int64_t stages_per_rank(Schedule s, int64_t virtual_stages) {
  switch (s) {
    case Schedule::Interleaved1F1B:
      return virtual_stages;
    case Schedule::DualPipeV:
      return 2;
    default:
      return 1;
  }
}

// Where Megatron-Core's combined 1F1B runs: it extends interleaved 1F1B ("PP > 1 requires VPP",
// its EP A2A overlap guide; virtual_stages >= 2 is interleaving's own rule) and runs without a
// pipeline at PP 1.
constexpr bool combined_1f1b_schedule(Schedule s, int64_t pp) {
  return s == Schedule::Interleaved1F1B || (s == Schedule::OneF1B && pp == 1);
}

struct ParallelSpec {
  int64_t tp = 1;
  int64_t pp = 1;
  int64_t dp = 1;
  int64_t cp = 1;                  // context parallel: the sequence split over cp ranks, ring
                                   // attention passes K/V blocks around them (Megatron-Core CP)
  bool sequence_parallel = false;  // Megatron SP (Korthikanti et al. 2022): norms/dropout split
                                   // over TP; all-gather + reduce-scatter replace all-reduce
  bool flash_attention = true;     // fused attention core (FlashAttention); false = Megatron's
                                   // unfused QK^T / softmax / dropout / PV with s x s scores in HBM
  // Megatron's --tp-comm-overlap: the share of each sublayer's TP all-gather and reduce-scatter
  // pipelined with its GEMMs (at most their time); 0 = on the critical path whole (training, SP).
  double tp_overlap = 0;
  int64_t ep = 1;                   // expert parallel group size (inside the DP x TP ranks)
  int64_t max_nodes_per_token = 0;  // node-limited routing (0 = the model's group-limited routing's)
  int64_t redundant_experts = 0;    // extra replicas of hot experts (DeepSeek-V3 serving: 32)
  // Routed rows on the most loaded EP rank / the mean (1 = perfectly balanced, as DeepSeek's
  // profiling runs simulate). It paces the grouped expert GEMMs and the all-to-all.
  double expert_imbalance = 1.0;
  Schedule schedule = Schedule::OneF1B;
  int64_t micro_batches = 1;   // per pipeline per step
  int64_t virtual_stages = 1;  // chunks per rank for interleaved 1F1B
  // Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm): every steady-state step
  // runs one micro-batch's forward beside another's backward, layer by layer, so that each
  // one's EP all-to-all hides behind the other's compute, as in DualPipe's F&B slots; one more
  // forward moves into the warm-up. Interleaved 1F1B, or 1F1B without a pipeline; MoE, ep > 1.
  bool combined_1f1b = false;
  int64_t zero_stage = 0;  // 0..3
  ActivationRecompute activation_recompute = ActivationRecompute::None;
  bool recompute_mhc = true;        // mHC block recompute (paper 4.3.2)
  int64_t mhc_recompute_block = 0;  // L_r; 0 = optimal from Eq. 20
  double overlap = 0.8;             // fraction of communication that can hide behind compute
  double pp_overlap = 0;            // fraction of each stage-boundary transfer hidden behind compute:
                                    // 0 = DualPipe's open reference (waits for every send at its
                                    // next commit), 1 = fully hidden (DeepSeek-V3 report 3.2.1; mHC
                                    // paper 4.3.3's extended DualPipe)
  int64_t extra_stage_layers = 0;   // layer-equivalents for embedding / head / MTP when
                                    // splitting layers over stages (DeepSeek-V3: 61 + 3 = 64)

  int64_t world_size() const { return tp * cp * pp * dp; }
  // Pipeline stages the model's layers are cut into (every micro-batch passes each once).
  int64_t stage_count() const { return pp * stages_per_rank(schedule, virtual_stages); }
};

enum class WorkloadMode { Train, Serve };
enum class ServePhase { Decode, Prefill };

struct WorkloadSpec {
  WorkloadMode mode = WorkloadMode::Train;
  // training
  int64_t seq_len = 4096;
  int64_t micro_batch_seqs = 1;  // sequences per micro-batch
  // Sequences per optimizer step over all DP ranks; 0 = not given (micro-batches are then
  // parallel.micro_batches). When given, parallel.micro_batches = global / (dp x micro_batch_seqs).
  int64_t global_batch_seqs = 0;
  double token_budget = 0;  // total training tokens (for GPU-hours / cost)
  // serving
  ServePhase phase = ServePhase::Decode;
  int64_t context_len = 4096;  // KV length per sequence
  // Concurrent sequences per model replica (tp x pp GPUs; one GPU with attention-DP EP):
  // decoded together (decode) or prompts processed per step (prefill).
  int64_t batch_seqs = 1;
  int64_t kv_block_tokens = 64;         // paged KV cache block size
  double target_tokens_per_second = 0;  // whole service's output (decode) or prompt (prefill)
                                        // tokens/s, for GPU sizing; 0 = none
};

// Figures measured in a published run (the scenario's [published] table), what
// `mhcsim validate` compares the model's predictions with.
struct PublishedFigure {
  std::string metric;  // one of published_metric_names(); the name carries the unit
  double value = 0;
  int line = 0;  // line in the scenario file, for messages
};
struct PublishedResults {
  std::string source;     // paper, table, row
  bool held_out = false;  // not looked at while choosing the model's default parameters
  std::vector<PublishedFigure> figures;
};
// Metrics a [published] table may hold:
//   step_time_s                  training iteration time, s
//   tflops_per_gpu               model TFLOP/s per GPU as the paper counts them (Megatron eq. 3)
//   mfu_pct                      model FLOPs utilisation, % of BF16 peak (non-causal, ISCA 2025)
//   activation_gib_per_gpu       activation memory of the most loaded GPU, GiB
//   step_time_ratio_vs_residual  step time / the same run with a plain residual (mHC overhead)
//   fb_chunk_pair_s              one F&B slot of a middle chunk as the schedule runs it (the
//                                DualPipes and combined 1F1B pair F with B, exposing what of
//                                their all-to-alls outlasts the partner's compute; else F + B), s
//   fb_pair_gemm_s, fb_pair_attention_s, fb_pair_memory_bound_s
//                                that pair's GEMM, attention-core and memory-bound kernel time, s
//   input_tokens_per_s_per_node  serving prefill: prompt tokens/s per node, prefix-cache hits
//                                included, at the scenario's batch of prompts
//   output_tokens_per_s_per_node serving decode: output tokens/s per node at the scenario's batch
//   output_tokens_per_s_per_user serving decode: tokens/s one sequence sees (1 / time per token)
//   prefix_cache_hit_pct         not a prediction but a condition of the run: % of prompt tokens
//                                served from the prefix cache, which the prefill figure counts
//                                (validate makes no row of it)
const std::vector<std::string>& published_metric_names();

struct Scenario {
  std::string name;
  std::string source;  // where the configuration is published
  std::string path;    // file it was read from
  ModelSpec model;
  HardwareSpec hardware;
  PrecisionSpec precision;
  ParallelSpec parallel;
  WorkloadSpec workload;
  std::string hardware_catalog;                   // hardware file whose GPUs hardware.gpu sees first
  std::optional<std::string> calibration_path;    // as given in the file or --calibration
  std::optional<CalibrationProfile> calibration;  // loaded by the caller (mhcsim_calib)
  std::optional<PublishedResults> published;      // validation cases only
};

std::string_view to_string(AttentionKind k);
std::string_view to_string(ResidualKind k);
std::string_view to_string(MlpKind k);
std::string_view to_string(Fp8GemmKernels k);
std::string_view to_string(Schedule s);
std::string_view to_string(ActivationRecompute r);
std::string_view to_string(WorkloadMode m);
std::string_view to_string(ServePhase p);
std::optional<AttentionKind> parse_attention_kind(std::string_view s);
std::optional<ResidualKind> parse_residual_kind(std::string_view s);
std::optional<MlpKind> parse_mlp_kind(std::string_view s);
std::optional<Fp8GemmKernels> parse_fp8_gemm_kernels(std::string_view s);
std::optional<Schedule> parse_schedule(std::string_view s);
std::optional<ActivationRecompute> parse_activation_recompute(std::string_view s);
std::optional<WorkloadMode> parse_workload_mode(std::string_view s);
std::optional<ServePhase> parse_serve_phase(std::string_view s);

}  // namespace mhcsim
