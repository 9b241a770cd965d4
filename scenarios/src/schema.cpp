#include "schema.h"

#include <filesystem>

#include "mhcsim/scenarios/catalog.h"
#include "parse.h"
#include "mhcsim/units.h"

namespace mhcsim::scenarios {
namespace {

using S = Scenario;
constexpr int64_t kMaxDim = int64_t{1} << 20;     // widths, ranks, heads
constexpr int64_t kMaxTokens = int64_t{1} << 32;  // sequence / context lengths
constexpr const char* kDTypes = "fp32|bf16|fp16|fp8|int4";

Field<S> dtype(std::string key, DType& (*ref)(S&)) {
  return enum_field<S, DType>(std::move(key), kDTypes, parse_dtype, ref);
}

// [hardware] catalog (or --hardware FILE): a hardware file's GPUs, read and checked here so that
// its errors name its own file and line. In a scenario file a relative path is relative to that
// file; from --set / --hardware, to the working directory.
Field<S> hardware_catalog_field() {
  Field<S> f{"hardware.catalog", "the path of a hardware TOML file ([gpu.NAME] tables)", false, {}};
  f.store = [f](S& s, const toml::node& node, const SourceLocation& where) {
    const auto v = node.value_exact<std::string>();
    if (!v) throw InputError(f.key, type_error(f, node), where);
    if (v->empty()) throw InputError(f.key, "is empty (expected " + f.expected + ")", where);
    std::filesystem::path path(*v);
    if (path.is_relative() && where.file != kSetLocation.file && !where.file.empty())
      path = std::filesystem::path(where.file).parent_path() / path;
    hardware_file(path);
    s.hardware_catalog = path.string();
  };
  return f;
}

// Any key of [published] creates the table; check.cpp then requires its source and a figure.
PublishedResults& published(S& s) { return s.published ? *s.published : s.published.emplace(); }

// [published]: where the figures come from, whether they were held out, and one key per
// metric that `mhcsim validate` can compare (the names carry the units).
std::vector<Field<S>> published_schema() {
  std::vector<Field<S>> fields{
      string_field<S>("published.source", [](S& s, std::string v) { published(s).source = std::move(v); }),
      bool_field<S>("published.held_out", [](S& s) -> bool& { return published(s).held_out; }),
  };
  for (const auto& metric : published_metric_names())
    fields.push_back(positive_field<S>("published." + metric, [metric](S& s, double v, const SourceLocation& where) {
      published(s).figures.push_back({metric, v, where.line});
    }));
  return fields;
}

std::vector<Field<S>> build_schema() {
  std::vector<Field<S>> schema{
      string_field<S>(
          "name",
          [](S& s, std::string v) {
            if (v.empty()) throw InputError("name", "empty (expected the scenario's name, which every output carries)");
            s.name = std::move(v);
          },
          true),
      string_field<S>("source", [](S& s, std::string v) { s.source = std::move(v); }),

      string_field<S>("model.name", [](S& s, std::string v) { s.model.name = std::move(v); }),
      int_field<S>(
          "model.layers", 1, 4096, [](S& s) -> int64_t& { return s.model.layers; }, true),
      int_field<S>(
          "model.hidden", 1, kMaxDim, [](S& s) -> int64_t& { return s.model.hidden; }, true),
      int_field<S>(
          "model.vocab", 1, int64_t{1} << 24, [](S& s) -> int64_t& { return s.model.vocab; }, true),
      enum_field<S, AttentionKind>(
          "model.attention", "mha|gqa|mqa|mla", parse_attention_kind,
          [](S& s) -> AttentionKind& { return s.model.attention; }, true),
      int_field<S>(
          "model.heads", 1, 4096, [](S& s) -> int64_t& { return s.model.heads; }, true),
      int_field<S>("model.kv_heads", 1, 4096, [](S& s) -> int64_t& { return s.model.kv_heads; }),
      int_field<S>("model.head_dim", 1, 4096, [](S& s) -> int64_t& { return s.model.head_dim; }),
      int_field<S>("model.q_lora_rank", 0, kMaxDim, [](S& s) -> int64_t& { return s.model.q_lora_rank; }),
      int_field<S>("model.kv_lora_rank", 0, kMaxDim, [](S& s) -> int64_t& { return s.model.kv_lora_rank; }),
      int_field<S>("model.qk_nope_head_dim", 0, 4096, [](S& s) -> int64_t& { return s.model.qk_nope_head_dim; }),
      int_field<S>("model.qk_rope_head_dim", 0, 4096, [](S& s) -> int64_t& { return s.model.qk_rope_head_dim; }),
      int_field<S>("model.v_head_dim", 0, 4096, [](S& s) -> int64_t& { return s.model.v_head_dim; }),
      int_field<S>("model.dense_layers", 0, 4096, [](S& s) -> int64_t& { return s.model.dense_layers; }),
      int_field<S>("model.ffn_hidden", 0, kMaxDim, [](S& s) -> int64_t& { return s.model.ffn_hidden; }),
      enum_field<S, MlpKind>("model.mlp", "swiglu|gelu", parse_mlp_kind, [](S& s) -> MlpKind& { return s.model.mlp; }),
      bool_field<S>("model.dropout", [](S& s) -> bool& { return s.model.dropout; }),
      bool_field<S>("model.tied_embeddings", [](S& s) -> bool& { return s.model.tied_embeddings; }),
      int_field<S>("model.mtp_depth", 0, 16, [](S& s) -> int64_t& { return s.model.mtp_depth; }),
      int_field<S>("model.moe.routed_experts", 0, 65536, [](S& s) -> int64_t& { return s.model.routed_experts; }),
      int_field<S>("model.moe.shared_experts", 0, 64, [](S& s) -> int64_t& { return s.model.shared_experts; }),
      int_field<S>("model.moe.top_k", 0, 1024, [](S& s) -> int64_t& { return s.model.top_k; }),
      int_field<S>("model.moe.expert_ffn_hidden", 0, kMaxDim,
                   [](S& s) -> int64_t& { return s.model.expert_ffn_hidden; }),
      int_field<S>("model.moe.groups", 1, 65536, [](S& s) -> int64_t& { return s.model.expert_groups; }),
      int_field<S>("model.moe.max_groups_per_token", 1, 65536,
                   [](S& s) -> int64_t& { return s.model.max_groups_per_token; }),
      enum_field<S, ResidualKind>("model.mhc.kind", "residual|hc|mhc", parse_residual_kind,
                                  [](S& s) -> ResidualKind& { return s.model.residual; }),
      int_field<S>("model.mhc.n", 1, 64, [](S& s) -> int64_t& { return s.model.mhc_n; }),
      int_field<S>("model.mhc.sinkhorn_iters", 1, 1000, [](S& s) -> int64_t& { return s.model.sinkhorn_iters; }),

      hardware_catalog_field(),  // before hardware.gpu, which looks there first
      string_field<S>(
          "hardware.gpu",
          [](S& s, std::string v) { s.hardware = find_gpu(v, "hardware.gpu", s.hardware_catalog).node; }, true),
      int_field<S>("hardware.gpus", 1, int64_t{1} << 24, [](S& s) -> int64_t& { return s.hardware.gpus; }),
      int_field<S>("hardware.gpus_per_node", 1, 1024, [](S& s) -> int& { return s.hardware.gpus_per_node; }),
      int_field<S>("hardware.nvlink_domain_gpus", 1, 1 << 20,
                   [](S& s) -> int& { return s.hardware.nvlink_domain_gpus; }),
      float_field<S>("hardware.nic_gb_per_s_per_gpu", 0.001, 1e5,
                     [](S& s) -> double& { return s.hardware.nic_gb_per_s_per_gpu; }),
      float_field<S>("hardware.nvlink_gb_per_s", 0.001, 1e5,
                     [](S& s) -> double& { return s.hardware.gpu.nvlink_gb_per_s; }),
      float_field<S>("hardware.hbm_gb_per_s", 0.001, 1e6, [](S& s) -> double& { return s.hardware.gpu.hbm_gb_per_s; }),
      float_field<S>("hardware.nvlink_latency_us", 0, 1e4,
                     [](S& s) -> double& { return s.hardware.nvlink_latency_us; }),
      float_field<S>("hardware.nic_latency_us", 0, 1e4, [](S& s) -> double& { return s.hardware.nic_latency_us; }),
      float_field<S>("hardware.price_per_gpu_hour", 0, 1e4,
                     [](S& s) -> double& { return s.hardware.price_per_gpu_hour; }),
      float_field<S>("hardware.pue", 1, 5, [](S& s) -> double& { return s.hardware.pue; }),

      dtype("precision.gemm", [](S& s) -> DType& { return s.precision.gemm; }),
      dtype("precision.activations", [](S& s) -> DType& { return s.precision.activations; }),
      dtype("precision.weights", [](S& s) -> DType& { return s.precision.weights; }),
      dtype("precision.master_weights", [](S& s) -> DType& { return s.precision.master_weights; }),
      dtype("precision.grads", [](S& s) -> DType& { return s.precision.grads; }),
      dtype("precision.optimizer_states", [](S& s) -> DType& { return s.precision.optimizer_states; }),
      dtype("precision.kv_cache", [](S& s) -> DType& { return s.precision.kv_cache; }),
      dtype("precision.dispatch", [](S& s) -> DType& { return s.precision.dispatch; }),
      dtype("precision.combine", [](S& s) -> DType& { return s.precision.combine; }),
      int_field<S>("precision.fp8_tile", 1, 65536, [](S& s) -> int64_t& { return s.precision.fp8_tile; }),
      enum_field<S, Fp8GemmKernels>("precision.fp8_gemm_kernels", "deepgemm|cutlass-3.6", parse_fp8_gemm_kernels,
                                    [](S& s) -> Fp8GemmKernels& { return s.precision.fp8_gemm_kernels; }),

      int_field<S>("parallel.tp", 1, 1024, [](S& s) -> int64_t& { return s.parallel.tp; }),
      int_field<S>("parallel.pp", 1, 4096, [](S& s) -> int64_t& { return s.parallel.pp; }),
      int_field<S>("parallel.dp", 1, int64_t{1} << 24, [](S& s) -> int64_t& { return s.parallel.dp; }),
      int_field<S>("parallel.cp", 1, 1024, [](S& s) -> int64_t& { return s.parallel.cp; }),
      bool_field<S>("parallel.sequence_parallel", [](S& s) -> bool& { return s.parallel.sequence_parallel; }),
      bool_field<S>("parallel.flash_attention", [](S& s) -> bool& { return s.parallel.flash_attention; }),
      float_field<S>("parallel.tp_overlap", 0, 1, [](S& s) -> double& { return s.parallel.tp_overlap; }),
      int_field<S>("parallel.ep", 1, 65536, [](S& s) -> int64_t& { return s.parallel.ep; }),
      int_field<S>("parallel.max_nodes_per_token", 0, 4096,
                   [](S& s) -> int64_t& { return s.parallel.max_nodes_per_token; }),
      int_field<S>("parallel.redundant_experts", 0, 65536,
                   [](S& s) -> int64_t& { return s.parallel.redundant_experts; }),
      float_field<S>("parallel.expert_imbalance", 1.0, 64.0,
                     [](S& s) -> double& { return s.parallel.expert_imbalance; }),
      enum_field<S, Schedule>("parallel.schedule", "1f1b|interleaved|zb1p|dualpipe|dualpipev", parse_schedule,
                              [](S& s) -> Schedule& { return s.parallel.schedule; }),
      int_field<S>("parallel.micro_batches", 1, kMaxMicroBatches,
                   [](S& s) -> int64_t& { return s.parallel.micro_batches; }),
      int_field<S>("parallel.virtual_stages", 1, 1024, [](S& s) -> int64_t& { return s.parallel.virtual_stages; }),
      bool_field<S>("parallel.combined_1f1b", [](S& s) -> bool& { return s.parallel.combined_1f1b; }),
      int_field<S>("parallel.zero_stage", 0, 3, [](S& s) -> int64_t& { return s.parallel.zero_stage; }),
      enum_field<S, ActivationRecompute>("parallel.activation_recompute", "none|selective|full|attention",
                                         parse_activation_recompute,
                                         [](S& s) -> ActivationRecompute& { return s.parallel.activation_recompute; }),
      bool_field<S>("parallel.recompute_mhc", [](S& s) -> bool& { return s.parallel.recompute_mhc; }),
      int_field<S>("parallel.mhc_recompute_block", 0, 4096,
                   [](S& s) -> int64_t& { return s.parallel.mhc_recompute_block; }),
      float_field<S>("parallel.overlap", 0, 1, [](S& s) -> double& { return s.parallel.overlap; }),
      float_field<S>("parallel.pp_overlap", 0, 1, [](S& s) -> double& { return s.parallel.pp_overlap; }),
      int_field<S>("parallel.extra_stage_layers", 0, 64,
                   [](S& s) -> int64_t& { return s.parallel.extra_stage_layers; }),

      enum_field<S, WorkloadMode>(
          "workload.mode", "train|serve", parse_workload_mode, [](S& s) -> WorkloadMode& { return s.workload.mode; },
          true),
      int_field<S>("workload.seq_len", 1, kMaxTokens, [](S& s) -> int64_t& { return s.workload.seq_len; }),
      int_field<S>("workload.micro_batch_seqs", 1, int64_t{1} << 20,
                   [](S& s) -> int64_t& { return s.workload.micro_batch_seqs; }),
      int_field<S>("workload.global_batch_seqs", 0, int64_t{1} << 40,
                   [](S& s) -> int64_t& { return s.workload.global_batch_seqs; }),
      float_field<S>("workload.token_budget", 0, 1e18, [](S& s) -> double& { return s.workload.token_budget; }),
      enum_field<S, ServePhase>("workload.phase", "decode|prefill", parse_serve_phase,
                                [](S& s) -> ServePhase& { return s.workload.phase; }),
      int_field<S>("workload.context_len", 1, kMaxTokens, [](S& s) -> int64_t& { return s.workload.context_len; }),
      int_field<S>("workload.batch_seqs", 1, int64_t{1} << 24, [](S& s) -> int64_t& { return s.workload.batch_seqs; }),
      int_field<S>("workload.kv_block_tokens", 1, 65536, [](S& s) -> int64_t& { return s.workload.kv_block_tokens; }),
      float_field<S>("workload.target_tokens_per_second", 0, 1e15,
                     [](S& s) -> double& { return s.workload.target_tokens_per_second; }),

      string_field<S>("calibration.profile", [](S& s, std::string v) { s.calibration_path = std::move(v); }),
  };
  for (auto& f : published_schema()) schema.push_back(std::move(f));
  return schema;
}

}  // namespace

const std::vector<Field<Scenario>>& scenario_schema() {
  static const std::vector<Field<Scenario>> schema = build_schema();
  return schema;
}

}  // namespace mhcsim::scenarios
