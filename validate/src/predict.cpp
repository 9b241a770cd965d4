// The model's value of each published metric, and the rows of a case.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "mhcsim/cost/memory.h"
#include "mhcsim/cost/serving_step.h"
#include "mhcsim/cost/step.h"
#include "mhcsim/error.h"
#include "mhcsim/units.h"
#include "mhcsim/validate/megatron_flops.h"
#include "mhcsim/validate/validate.h"

namespace mhcsim::validate {

namespace {
double tflops_per_gpu(const Scenario& s) {
  const double flops = megatron_flops_per_iteration(megatron_flops_inputs(s));
  const double step = cost::step_estimate(s).step_seconds;
  const auto gpus = static_cast<double>(s.hardware.gpus);
  require(step > 0 && gpus > 0, "hardware.gpus", "a step time and a GPU count > 0 are needed for TFLOP/s per GPU");
  return flops / (step * gpus) / kTFLOP;
}

double step_time_ratio_vs_residual(const Scenario& s) {
  Scenario plain = s;
  plain.model.residual = ResidualKind::Residual;
  plain.model.mhc_n = 1;
  const double base = cost::step_estimate(plain).step_seconds;
  require(base > 0, "model.mhc", "the plain-residual step time is 0");
  return cost::step_estimate(s).step_seconds / base;
}

// A condition of the run published next to its figures (not predicted): prefix_cache_hit_pct.
constexpr std::string_view kPrefixHitCondition = "prefix_cache_hit_pct";
bool is_condition(std::string_view metric) { return metric == kPrefixHitCondition; }
double condition(const Scenario& s, std::string_view name) {
  if (!s.published) return 0;
  for (const auto& f : s.published->figures)
    if (f.metric == name) return f.value;
  return 0;
}

// Serving figures come from the iteration model (cost::ServingStepModel) at the scenario's batch,
// one replica per tp x pp GPUs.
void require_serving(const Scenario& s, ServePhase phase, std::string_view metric) {
  require(s.workload.mode == WorkloadMode::Serve && s.workload.phase == phase, "workload.phase",
          fmt::format("{} needs a serving scenario in the {} phase", metric, to_string(phase)));
}
double replicas_per_node(const Scenario& s) {
  return static_cast<double>(s.hardware.gpus_per_node) / static_cast<double>(s.parallel.tp * s.parallel.pp);
}

// Every sequence of the batch decodes one token over context_len cached tokens.
double decode_seconds(const Scenario& s, std::string_view metric) {
  require_serving(s, ServePhase::Decode, metric);
  const auto seqs = static_cast<double>(s.workload.batch_seqs);
  return cost::ServingStepModel::time_once(s, cost::decode_batch(seqs, static_cast<double>(s.workload.context_len)))
      .seconds;
}

// batch_seqs prompts of context_len tokens, the first prefix_cache_hit_pct % of each served from
// the prefix cache: attended, not computed; the figure counts every prompt token.
double prefill_input_tokens_per_s_per_node(const Scenario& s, std::string_view metric) {
  require_serving(s, ServePhase::Prefill, metric);
  const double len = static_cast<double>(s.workload.context_len);
  const double seqs = static_cast<double>(s.workload.batch_seqs);
  const double cached = std::min(len - 1, std::floor(condition(s, kPrefixHitCondition) / 100.0 * len));
  return seqs * len * replicas_per_node(s) /
         cost::ServingStepModel::time_once(s, cost::prompt_batch(seqs, len, cached)).seconds;
}
}  // namespace

double predict(const Scenario& s, std::string_view metric) {
  if (metric == "step_time_s") return cost::step_estimate(s).step_seconds;
  if (metric == "tflops_per_gpu") return tflops_per_gpu(s);
  if (metric == "mfu_pct") return cost::step_estimate(s).mfu * 100.0;
  if (metric == "activation_gib_per_gpu") return cost::training_memory(s).activation_bytes / kGiB;
  if (metric == "step_time_ratio_vs_residual") return step_time_ratio_vs_residual(s);
  // One F&B slot as the schedule runs it: paired in the DualPipes and combined 1F1B (what
  // outlasts the partner's compute exposed), F + B one after the other elsewhere.
  if (metric == "fb_chunk_pair_s") return cost::step_estimate(s).phases.fb;
  const auto kind = [&](cost::OpKind k) {
    return cost::step_estimate(s).middle_chunk.kind_seconds[static_cast<size_t>(k)];
  };
  if (metric == "fb_pair_gemm_s") return kind(cost::OpKind::Gemm);
  if (metric == "fb_pair_attention_s") return kind(cost::OpKind::Attention);
  if (metric == "fb_pair_memory_bound_s") return kind(cost::OpKind::MemoryBound);
  if (metric == "input_tokens_per_s_per_node") return prefill_input_tokens_per_s_per_node(s, metric);
  if (metric == "output_tokens_per_s_per_node")
    return static_cast<double>(s.workload.batch_seqs) * replicas_per_node(s) / decode_seconds(s, metric);
  if (metric == "output_tokens_per_s_per_user") return 1.0 / decode_seconds(s, metric);
  if (is_condition(metric))
    throw InputError("published." + std::string(metric), "is a condition of the run, not a predicted figure");
  std::string known;
  for (const auto& name : published_metric_names()) known += (known.empty() ? "" : ", ") + name;
  throw InputError("published." + std::string(metric), fmt::format("unknown metric (expected one of {})", known));
}

std::vector<Row> validate_case(const Scenario& s) {
  if (!s.published || s.published->figures.empty())
    throw InputError("published", "a validation case needs a [published] table with at least one figure", {s.path, 0});
  const auto& p = *s.published;
  std::vector<Row> rows;
  for (const auto& f : p.figures) {
    if (is_condition(f.metric)) continue;  // an input of other figures' predictions
    try {
      Row r{s.name, s.path, f.metric, f.value, predict(s, f.metric), 0, p.held_out, p.source};
      r.delta_pct = delta_pct(r.predicted, r.published);
      rows.push_back(std::move(r));
    } catch (const InputError& e) {
      // Say which case and figure: errors from the cost model carry only the spec key.
      if (!e.where().file.empty()) throw;
      throw InputError(e.key(), e.reason() + fmt::format(" (published.{})", f.metric), {s.path, f.line});
    }
  }
  return rows;
}

}  // namespace mhcsim::validate
