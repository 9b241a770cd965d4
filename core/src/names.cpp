// Spellings of the enums as they appear in scenario files, tables and JSON. One table per
// enum serves both directions.
#include <array>
#include <utility>

#include "mhcsim/dtype.h"
#include "mhcsim/specs.h"

namespace mhcsim {
namespace {

template <class E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

template <class E, std::size_t N>
std::string_view name_of(const NameTable<E, N>& table, E value) {
  for (const auto& [v, name] : table)
    if (v == value) return name;
  return "?";
}

template <class E, std::size_t N>
std::optional<E> value_of(const NameTable<E, N>& table, std::string_view name) {
  for (const auto& [v, n] : table)
    if (n == name) return v;
  return std::nullopt;
}

constexpr NameTable<DType, 5> kDTypes{
    {{DType::FP32, "fp32"}, {DType::BF16, "bf16"}, {DType::FP16, "fp16"}, {DType::FP8, "fp8"}, {DType::INT4, "int4"}}};
constexpr NameTable<AttentionKind, 4> kAttention{{{AttentionKind::MHA, "mha"},
                                                  {AttentionKind::GQA, "gqa"},
                                                  {AttentionKind::MQA, "mqa"},
                                                  {AttentionKind::MLA, "mla"}}};
constexpr NameTable<ResidualKind, 3> kResidual{
    {{ResidualKind::Residual, "residual"}, {ResidualKind::HC, "hc"}, {ResidualKind::MHC, "mhc"}}};
constexpr NameTable<Schedule, 5> kSchedules{{{Schedule::OneF1B, "1f1b"},
                                             {Schedule::Interleaved1F1B, "interleaved"},
                                             {Schedule::ZB1P, "zb1p"},
                                             {Schedule::DualPipe, "dualpipe"},
                                             {Schedule::DualPipeV, "dualpipev"}}};
constexpr NameTable<MlpKind, 2> kMlp{{{MlpKind::SwiGLU, "swiglu"}, {MlpKind::GeLU, "gelu"}}};
constexpr NameTable<Fp8GemmKernels, 2> kFp8Gemm{
    {{Fp8GemmKernels::DeepGemm, "deepgemm"}, {Fp8GemmKernels::Cutlass36, "cutlass-3.6"}}};
constexpr NameTable<ActivationRecompute, 4> kRecompute{{{ActivationRecompute::None, "none"},
                                                        {ActivationRecompute::Selective, "selective"},
                                                        {ActivationRecompute::Full, "full"},
                                                        {ActivationRecompute::Attention, "attention"}}};
constexpr NameTable<WorkloadMode, 2> kModes{{{WorkloadMode::Train, "train"}, {WorkloadMode::Serve, "serve"}}};
constexpr NameTable<ServePhase, 2> kPhases{{{ServePhase::Decode, "decode"}, {ServePhase::Prefill, "prefill"}}};

}  // namespace

std::string_view to_string(DType t) { return name_of(kDTypes, t); }
std::string_view to_string(AttentionKind k) { return name_of(kAttention, k); }
std::string_view to_string(ResidualKind k) { return name_of(kResidual, k); }
std::string_view to_string(MlpKind k) { return name_of(kMlp, k); }
std::string_view to_string(Fp8GemmKernels k) { return name_of(kFp8Gemm, k); }
std::string_view to_string(Schedule s) { return name_of(kSchedules, s); }
std::string_view to_string(ActivationRecompute r) { return name_of(kRecompute, r); }
std::string_view to_string(WorkloadMode m) { return name_of(kModes, m); }
std::string_view to_string(ServePhase p) { return name_of(kPhases, p); }

std::optional<DType> parse_dtype(std::string_view s) { return value_of(kDTypes, s); }
std::optional<AttentionKind> parse_attention_kind(std::string_view s) { return value_of(kAttention, s); }
std::optional<ResidualKind> parse_residual_kind(std::string_view s) { return value_of(kResidual, s); }
std::optional<MlpKind> parse_mlp_kind(std::string_view s) { return value_of(kMlp, s); }
std::optional<Fp8GemmKernels> parse_fp8_gemm_kernels(std::string_view s) { return value_of(kFp8Gemm, s); }
std::optional<Schedule> parse_schedule(std::string_view s) { return value_of(kSchedules, s); }
std::optional<ActivationRecompute> parse_activation_recompute(std::string_view s) { return value_of(kRecompute, s); }
std::optional<WorkloadMode> parse_workload_mode(std::string_view s) { return value_of(kModes, s); }
std::optional<ServePhase> parse_serve_phase(std::string_view s) { return value_of(kPhases, s); }

const std::vector<std::string>& published_metric_names() {
  static const std::vector<std::string> names{"step_time_s",
                                              "tflops_per_gpu",
                                              "mfu_pct",
                                              "activation_gib_per_gpu",
                                              "step_time_ratio_vs_residual",
                                              "fb_chunk_pair_s",
                                              "fb_pair_gemm_s",
                                              "fb_pair_attention_s",
                                              "fb_pair_memory_bound_s",
                                              "input_tokens_per_s_per_node",
                                              "output_tokens_per_s_per_node",
                                              "output_tokens_per_s_per_user",
                                              "prefix_cache_hit_pct"};
  return names;
}

}  // namespace mhcsim
