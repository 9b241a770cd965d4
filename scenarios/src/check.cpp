#include "check.h"

#include <filesystem>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "mhcsim/input_file.h"
#include "mhcsim/scenarios/schedule_rules.h"
#include "schema.h"

namespace mhcsim::scenarios {

SourceLocation KeyLocations::at(const std::string& key) const {
  // A key not written is reported at the nearest table that is: a missing published.source
  // points at the [published] header rather than at line 0.
  for (std::string k = key;;) {
    if (const SourceLocation* where = find(k)) return *where;
    const auto dot = k.rfind('.');
    if (dot == std::string::npos) return {file_, 0};
    k.resize(dot);
  }
}

namespace {

struct Checker {
  const KeyLocations& keys;
  void require(bool ok, const std::string& key, const std::string& reason) const {
    if (!ok) throw InputError(key, reason, keys.at(key));
  }
};

void check_attention(ModelSpec& m, const Checker& c) {
  switch (m.attention) {
    case AttentionKind::MHA:
      if (!c.keys.has("model.kv_heads")) m.kv_heads = m.heads;
      c.require(m.kv_heads == m.heads, "model.kv_heads",
                fmt::format("MHA needs kv_heads == heads ({} != {}; use attention = \"gqa\")", m.kv_heads, m.heads));
      break;
    case AttentionKind::MQA:
      if (!c.keys.has("model.kv_heads")) m.kv_heads = 1;
      c.require(m.kv_heads == 1, "model.kv_heads", "MQA has exactly one KV head");
      break;
    case AttentionKind::GQA:
      c.require(c.keys.has("model.kv_heads"), "model.kv_heads", "missing (GQA needs the KV group count)");
      c.require(m.heads % m.kv_heads == 0, "model.kv_heads",
                fmt::format("heads {} is not a multiple of kv_heads {}", m.heads, m.kv_heads));
      break;
    case AttentionKind::MLA:
      for (const auto& [key, v] :
           {std::pair{"model.kv_lora_rank", m.kv_lora_rank}, std::pair{"model.qk_nope_head_dim", m.qk_nope_head_dim},
            std::pair{"model.qk_rope_head_dim", m.qk_rope_head_dim}, std::pair{"model.v_head_dim", m.v_head_dim}})
        c.require(v > 0, key, "missing or zero (MLA needs it, expected integer > 0)");
      m.kv_heads = 1;  // one latent "head" shared by all query heads
      if (m.head_dim == 0) m.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;
      return;
  }
  c.require(m.head_dim > 0, "model.head_dim", "missing (expected integer > 0 for MHA/GQA/MQA)");
}

void check_ffn(ModelSpec& m, const Checker& c) {
  if (!m.is_moe()) {
    c.require(m.top_k == 0, "model.moe.top_k", "set without routed experts (model.moe.routed_experts = 0)");
    m.dense_layers = m.layers;
  } else {
    c.require(m.top_k >= 1, "model.moe.top_k", "missing or zero (expected integer >= 1 with routed experts)");
    c.require(m.top_k <= m.routed_experts, "model.moe.top_k",
              fmt::format("top-k {} exceeds routed experts {}", m.top_k, m.routed_experts));
    c.require(m.expert_ffn_hidden > 0, "model.moe.expert_ffn_hidden", "missing (expected integer > 0)");
    c.require(m.routed_experts % m.expert_groups == 0, "model.moe.groups",
              fmt::format("{} routed experts do not split into {} groups", m.routed_experts, m.expert_groups));
    c.require(m.max_groups_per_token <= m.expert_groups, "model.moe.max_groups_per_token",
              fmt::format("{} exceeds the {} groups", m.max_groups_per_token, m.expert_groups));
    c.require(m.dense_layers < m.layers, "model.dense_layers",
              fmt::format("{} dense layers leave no MoE layer of {}", m.dense_layers, m.layers));
  }
  if (m.dense_layers > 0)
    c.require(m.ffn_hidden > 0, "model.ffn_hidden", "missing (dense FFN layers need it, expected integer > 0)");
}

void check_mhc(ModelSpec& m, const Checker& c) {
  if (!c.keys.has("model.mhc.kind") && m.mhc_n > 1) m.residual = ResidualKind::MHC;
  if (m.residual == ResidualKind::Residual)
    c.require(m.mhc_n == 1, "model.mhc.n", "a plain residual has n = 1 (set model.mhc.kind = \"mhc\" or \"hc\")");
}

// TP, CP and PP against the model's shape, before the GPU count is split over them.
void check_model_split(const Scenario& s, const Checker& c) {
  const auto& p = s.parallel;
  const auto& m = s.model;
  c.require(m.heads % p.tp == 0, "parallel.tp",
            fmt::format("{} attention heads do not split over TP {}", m.heads, p.tp));
  c.require(!p.sequence_parallel || p.tp > 1, "parallel.sequence_parallel",
            "sequence parallelism splits over TP: needs parallel.tp > 1");
  // Megatron refuses --tp-comm-overlap without --sequence-parallel (its overlap pipelines the
  // all-gather and reduce-scatter SP puts in place of the all-reduce); the serving step prices
  // its collectives on the critical path.
  c.require(p.tp_overlap == 0 || p.sequence_parallel, "parallel.tp_overlap",
            "overlaps sequence parallelism's all-gather and reduce-scatter: needs parallel.sequence_parallel = true");
  c.require(p.tp_overlap == 0 || s.workload.mode == WorkloadMode::Train, "parallel.tp_overlap",
            "prices training steps only (workload.mode = \"train\")");
  // Megatron-Core's causal CP cuts the sequence into 2 x CP chunks and gives rank r chunks r
  // and 2CP-1-r, so every rank gets an equal share of the causal mask's work.
  if (s.workload.mode == WorkloadMode::Train && p.cp > 1)
    c.require(s.workload.seq_len % (2 * p.cp) == 0, "parallel.cp",
              fmt::format("workload.seq_len {} does not split into 2 x CP = {} chunks (load-balanced "
                          "causal CP gives each rank one early and one late chunk)",
                          s.workload.seq_len, 2 * p.cp));
  c.require(p.pp <= m.layers, "parallel.pp", fmt::format("PP {} exceeds {} layers", p.pp, m.layers));
  if (p.schedule == Schedule::DualPipe)
    c.require(p.pp % 2 == 0, "parallel.pp", fmt::format("DualPipe needs an even number of ranks (got PP {})", p.pp));
}

// What to blame when the GPUs do not split: the parallel degree the user just changed with
// --set (`--set parallel.pp=6` over a file's 2048 GPUs), else the GPU count.
std::string gpu_split_key(const Checker& c) {
  if (c.keys.at("hardware.gpus").file != "--set")
    for (const char* key : {"parallel.pp", "parallel.tp", "parallel.cp", "parallel.dp"})
      if (c.keys.has(key) && c.keys.at(key).file == "--set") return key;
  return "hardware.gpus";
}

// hardware.gpus = TP x CP x PP x DP; DP is derived when only the GPU count is given.
void derive_dp(Scenario& s, const Checker& c) {
  auto& p = s.parallel;
  if (s.hardware.gpus > 0 && !c.keys.has("parallel.dp")) {
    c.require(s.hardware.gpus % (p.tp * p.cp * p.pp) == 0, gpu_split_key(c),
              fmt::format("{} GPUs do not split into TP {} x CP {} x PP {}", s.hardware.gpus, p.tp, p.cp, p.pp));
    p.dp = s.hardware.gpus / (p.tp * p.cp * p.pp);
  } else if (s.hardware.gpus == 0) {
    s.hardware.gpus = p.world_size();
  }
  c.require(s.hardware.gpus == p.world_size(), gpu_split_key(c),
            fmt::format("{} GPUs != TP {} x CP {} x PP {} x DP {} = {}", s.hardware.gpus, p.tp, p.cp, p.pp, p.dp,
                        p.world_size()));
}

// A --set of a workload or parallel key that only the other mode reads would change nothing without a
// word: a serving run's token budget, a training run's workload.phase. In a file such keys may
// stay (a training scenario run with --set workload.mode=serve keeps its batch). seq_len,
// micro_batch_seqs, context_len, batch_seqs and kv_block_tokens are read in either mode
// (traffic, kv, a2a and the report's KV figures use them).
void check_mode_keys(const Scenario& s, const Checker& c) {
  const bool train = s.workload.mode == WorkloadMode::Train;
  // Serving splits an iteration by itself (parallel.overlap: two overlapped micro-batches; PP: PP
  // of them), so parallel.micro_batches is training's.
  const std::vector<const char*> train_only{"workload.global_batch_seqs", "workload.token_budget",
                                            "parallel.micro_batches"};
  const std::vector<const char*> serve_only{"workload.phase", "workload.target_tokens_per_second"};
  for (const char* key : train ? serve_only : train_only)
    c.require(!c.keys.has(key) || c.keys.at(key).file != "--set", key,
              fmt::format("only for mode = {} (this scenario's workload.mode is {})", train ? "serve" : "train",
                          train ? "train" : "serve"));
}

// workload.global_batch_seqs (Megatron's --global-batch-size) fixes the micro-batches per
// pipeline: global = DP x micro_batch_seqs x micro_batches. Needs DP, so runs after derive_dp.
void derive_micro_batches(Scenario& s, const Checker& c) {
  const auto& w = s.workload;
  auto& p = s.parallel;
  if (w.global_batch_seqs == 0 || w.mode != WorkloadMode::Train) return;  // check_mode_keys: serving
  const int64_t per_micro_batch = p.dp * w.micro_batch_seqs;
  c.require(w.global_batch_seqs % per_micro_batch == 0, "workload.global_batch_seqs",
            fmt::format("{} sequences do not split into DP {} x micro_batch_seqs {} = {} per micro-batch",
                        w.global_batch_seqs, p.dp, w.micro_batch_seqs, per_micro_batch));
  const int64_t micro_batches = w.global_batch_seqs / per_micro_batch;
  c.require(micro_batches <= kMaxMicroBatches, "workload.global_batch_seqs",
            fmt::format("gives {} micro-batches per pipeline (expected at most {})", micro_batches, kMaxMicroBatches));
  c.require(
      !c.keys.has("parallel.micro_batches") || p.micro_batches == micro_batches, "parallel.micro_batches",
      fmt::format("both parallel.micro_batches = {} and workload.global_batch_seqs = {} are given, "
                  "and the batch gives {} (= {} / (DP {} x micro_batch_seqs {})): give one",
                  p.micro_batches, w.global_batch_seqs, micro_batches, w.global_batch_seqs, p.dp, w.micro_batch_seqs));
  p.micro_batches = micro_batches;
}

}  // namespace

std::optional<ScheduleProblem> schedule_problem(const ParallelSpec& p, bool virtual_stages_given) {
  const auto problem = [](const char* key, std::string message) {
    return std::optional<ScheduleProblem>(ScheduleProblem{key, std::move(message)});
  };
  if (p.schedule == Schedule::DualPipe || p.schedule == Schedule::DualPipeV) {
    if (p.micro_batches < 2 * p.pp)
      return problem("parallel.micro_batches", fmt::format("{} needs micro_batches >= 2 x PP = {} (got {})",
                                                           to_string(p.schedule), 2 * p.pp, p.micro_batches));
    if (p.schedule == Schedule::DualPipe && p.micro_batches % 2 != 0)
      return problem("parallel.micro_batches",
                     fmt::format("DualPipe splits micro-batches over two directions: needs an even count (got {})",
                                 p.micro_batches));
  }
  // ZB-H1 (Qi et al. 2023, Figure 3) fills the pipeline with PP forwards before its first B;
  // `step` priced fewer with the formula while `simulate` refused them.
  if (p.schedule == Schedule::ZB1P && p.micro_batches < p.pp)
    return problem("parallel.micro_batches",
                   fmt::format("ZB-H1 needs micro_batches >= PP = {} (got {})", p.pp, p.micro_batches));
  if (p.schedule == Schedule::Interleaved1F1B) {
    if (p.virtual_stages < 2)
      return problem("parallel.virtual_stages",
                     "interleaved 1F1B needs at least 2 chunks per rank (expected integer >= 2)");
    if (p.micro_batches % p.pp != 0)
      return problem(
          "parallel.micro_batches",
          fmt::format("interleaved 1F1B needs micro_batches divisible by PP {} (got {})", p.pp, p.micro_batches));
  } else if (virtual_stages_given && p.virtual_stages != 1) {
    return problem("parallel.virtual_stages", "only the interleaved schedule uses virtual stages");
  }
  if (p.combined_1f1b && !combined_1f1b_schedule(p.schedule, p.pp))
    return problem(
        "parallel.combined_1f1b",
        fmt::format("combined 1F1B runs on schedule = \"interleaved\", or \"1f1b\" at PP 1 (got {} at PP {})",
                    to_string(p.schedule), p.pp));
  return std::nullopt;
}

namespace {

void check_schedule(const ParallelSpec& p, const Checker& c) {
  if (auto problem = schedule_problem(p, c.keys.has("parallel.virtual_stages")))
    c.require(false, problem->key, problem->message);
}

// Combined 1F1B pairs one micro-batch's EP all-to-alls with another's compute in a training
// step (its schedule is schedule_problem's).
void check_combined_1f1b(const Scenario& s, const Checker& c) {
  if (!s.parallel.combined_1f1b) return;
  c.require(s.model.is_moe() && s.parallel.ep > 1, "parallel.combined_1f1b",
            "combined 1F1B overlaps the EP all-to-all: it needs a MoE model and parallel.ep > 1");
  c.require(s.workload.mode == WorkloadMode::Train, "parallel.combined_1f1b",
            "schedules training steps only (workload.mode = \"train\")");
}

void check_experts(const Scenario& s, const Checker& c) {
  const auto& p = s.parallel;
  const auto& m = s.model;
  if (!m.is_moe()) {
    c.require(p.ep == 1, "parallel.ep", "expert parallelism needs routed experts (model.moe.routed_experts)");
    c.require(p.redundant_experts == 0, "parallel.redundant_experts", "set without routed experts");
    return;
  }
  c.require(p.ep <= m.routed_experts, "parallel.ep",
            fmt::format("EP {} is larger than the {} routed experts", p.ep, m.routed_experts));
  const int64_t slots = m.routed_experts + p.redundant_experts;
  c.require(slots % p.ep == 0, "parallel.ep",
            fmt::format("{} routed + {} redundant experts do not split evenly over EP {}", m.routed_experts,
                        p.redundant_experts, p.ep));
  // Experts are not split over CP in our model: each CP rank holds the stage's experts.
  c.require((p.dp * p.tp) % p.ep == 0, "parallel.ep",
            fmt::format("EP {} must divide the DP x TP = {} ranks of a stage (experts are not split over CP)", p.ep,
                        p.dp * p.tp));
}

void check_parallel(Scenario& s, const Checker& c) {
  auto& p = s.parallel;
  check_model_split(s, c);
  derive_dp(s, c);
  derive_micro_batches(s, c);
  check_schedule(p, c);
  const int64_t stages = p.stage_count();
  const int64_t stage_layers = s.model.layers + p.extra_stage_layers;
  c.require(stage_layers % stages == 0, "parallel.pp",
            fmt::format("model.layers {} + parallel.extra_stage_layers {} = {} is not divisible by the "
                        "{} pipeline stages ({} ranks x {} stages per rank, schedule {})",
                        s.model.layers, p.extra_stage_layers, stage_layers, stages, p.pp,
                        stages_per_rank(p.schedule, p.virtual_stages), to_string(p.schedule)));
  check_experts(s, c);
  check_combined_1f1b(s, c);
  c.require(p.zero_stage == 0 || p.dp > 1 || !c.keys.has("parallel.zero_stage"), "parallel.zero_stage",
            "ZeRO shards over data parallelism: needs parallel.dp > 1");
}

void check_precision(const Scenario& s, const Checker& c) {
  const auto& pr = s.precision;
  if (pr.gemm == DType::FP8)
    c.require(s.hardware.gpu.fp8_tflops > 0, "precision.gemm",
              fmt::format("{} has no FP8 tensor cores (expected bf16 or fp16)", s.hardware.gpu.name));
  c.require(pr.gemm != DType::INT4 && pr.gemm != DType::FP32, "precision.gemm",
            "expected fp8, bf16 or fp16 for tensor-core GEMMs");
  for (const auto& [key, t] : {std::pair{"precision.master_weights", pr.master_weights},
                               std::pair{"precision.optimizer_states", pr.optimizer_states}})
    c.require(t != DType::INT4, key, "int4 is only supported for the KV cache and weights at serving");
}

// A server's GPUs share its NVLink, so an NVLink domain holds at least one server.
void check_hardware(const HardwareSpec& h, const Checker& c) {
  if (h.nvlink_domain_gpus == 0) return;
  c.require(
      h.nvlink_domain_gpus >= h.gpus_per_node,
      c.keys.has("hardware.nvlink_domain_gpus") ? "hardware.nvlink_domain_gpus" : "hardware.gpus_per_node",
      fmt::format("an NVLink domain of {} GPUs is smaller than a server of {}", h.nvlink_domain_gpus, h.gpus_per_node));
}

void check_calibration(Scenario& s, const Checker& c) {
  if (!s.calibration_path) return;
  namespace fs = std::filesystem;
  fs::path p(*s.calibration_path);
  const auto where = c.keys.at("calibration.profile");
  if (p.is_relative() && !where.file.empty() && where.file != "--set") p = fs::path(where.file).parent_path() / p;
  // stat() only: a FIFO must not block here; a device or directory is refused by name.
  const std::string problem = input_file_problem(p);
  std::error_code ec;  // the non-throwing overload: a name too long is "not found", not a crash
  c.require(problem.empty(), "calibration.profile",
            fs::exists(p, ec) ? fmt::format("{} is {}", p.string(), problem)
                              : fmt::format("file not found: {} ({})", p.string(), problem));
  s.calibration_path = p.string();
}

// A [published] table is a validation case: it must say where its figures come from and hold
// at least one figure to compare with.
void check_published(const Scenario& s, const Checker& c) {
  if (!s.published && !c.keys.has("published")) return;
  c.require(s.published && !s.published->source.empty(), "published.source",
            "missing or empty (a [published] table must cite its figures, expected a string)");
  c.require(!s.published->figures.empty(), "published",
            fmt::format("no figure (expected at least one of {})", fmt::join(published_metric_names(), ", ")));
}

}  // namespace

void complete_and_check(Scenario& s, const KeyLocations& keys) {
  const Checker c{keys};
  check_attention(s.model, c);
  check_ffn(s.model, c);
  check_mhc(s.model, c);
  check_mode_keys(s, c);
  check_parallel(s, c);
  check_precision(s, c);
  check_hardware(s.hardware, c);
  check_calibration(s, c);
  check_published(s, c);
  if (s.model.name.empty()) s.model.name = s.name;
}

}  // namespace mhcsim::scenarios
