// The model's value of each published metric, and the rows of a case.
#include <fmt/format.h>

#include <string>

#include "mhcsim/cost/memory.h"
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
}  // namespace

double predict(const Scenario& s, std::string_view metric) {
  if (metric == "step_time_s") return cost::step_estimate(s).step_seconds;
  if (metric == "tflops_per_gpu") return tflops_per_gpu(s);
  if (metric == "mfu_pct") return cost::step_estimate(s).mfu * 100.0;
  if (metric == "activation_gib_per_gpu") return cost::training_memory(s).activation_bytes / kGiB;
  if (metric == "step_time_ratio_vs_residual") return step_time_ratio_vs_residual(s);
  if (metric == "fb_chunk_pair_s") {
    const auto e = cost::step_estimate(s);
    return e.phases.f + e.phases.b;
  }
  const auto kind = [&](cost::OpKind k) {
    return cost::step_estimate(s).middle_chunk.kind_seconds[static_cast<size_t>(k)];
  };
  if (metric == "fb_pair_gemm_s") return kind(cost::OpKind::Gemm);
  if (metric == "fb_pair_attention_s") return kind(cost::OpKind::Attention);
  if (metric == "fb_pair_memory_bound_s") return kind(cost::OpKind::MemoryBound);
  std::string known;
  for (const auto& name : published_metric_names()) known += (known.empty() ? "" : ", ") + name;
  throw InputError("published." + std::string(metric), fmt::format("unknown metric (expected one of {})", known));
}

std::vector<Row> validate_case(const Scenario& s) {
  if (!s.published || s.published->figures.empty())
    throw InputError("published", "a validation case needs a [published] table with at least one figure",
                     {s.path, 0});
  const auto& p = *s.published;
  std::vector<Row> rows;
  for (const auto& f : p.figures) {
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

Report validate_cases(const std::vector<Scenario>& cases) {
  Report report;
  for (const auto& s : cases)
    for (auto& r : validate_case(s)) report.rows.push_back(std::move(r));
  report.summary = summarize(report.rows);
  return report;
}

}  // namespace mhcsim::validate
