// Report sections: KV cache capacity vs context length (the scenario's attention against its
// MHA- and GQA-shaped counterparts) and the mHC residual's overhead vs the expansion rate n.
#include <fmt/format.h>

#include "mhcsim/cost/kv_cache.h"
#include "mhcsim/cost/mhc_traffic.h"
#include "mhcsim/cost/step.h"
#include "mhcsim/reports/svg.h"
#include "mhcsim/units.h"
#include "report_parts.h"

namespace mhcsim::sweep::detail {
namespace {

// The same model with another attention layout, as far as the KV cache sees it: MHA keeps one
// K and V per head at the head dim, GQA shares them over groups of heads.
ModelSpec with_attention(ModelSpec m, AttentionKind kind, int64_t kv_heads) {
  m.attention = kind;
  m.kv_heads = kv_heads;
  return m;
}

}  // namespace

reports::Section kv_section(const Scenario& s) {
  const auto& m = s.model;
  struct Shape {
    std::string name;
    ModelSpec model;
  };
  std::vector<Shape> shapes = {{fmt::format("{} (scenario)", to_string(m.attention)), m}};
  if (m.attention != AttentionKind::MHA)
    shapes.push_back({fmt::format("MHA, {} heads x {}", m.heads, m.head_dim), with_attention(m, AttentionKind::MHA, m.heads)});
  if (m.attention != AttentionKind::GQA && m.heads % 8 == 0)
    shapes.push_back({fmt::format("GQA, 8 groups x {}", m.head_dim), with_attention(m, AttentionKind::GQA, 8)});

  reports::LineChart per_seq, fit;
  per_seq.title = "KV cache per sequence vs context length";
  per_seq.x = {"context length", "tokens", true};
  per_seq.y = {"KV cache per sequence, all layers", "GiB", true, 1.0 / kGiB};
  fit.title = fmt::format("Sequences per {} GPU vs context length", s.hardware.gpu.name);
  fit.x = per_seq.x;
  fit.y = {"sequences that fit in HBM", "sequences"};
  reports::Table table("KV cache per token", {{"attention", "attention"},
                                             {"kv_bytes_per_token", "KV per token (KiB)", 2, 1.0 / kKiB}});
  for (const auto& sh : shapes) {
    reports::Series a{sh.name, {}, {}}, b{sh.name, {}, {}};
    Scenario v = s;
    v.model = sh.model;
    for (int64_t ctx = 1024; ctx <= 128 * 1024; ctx *= 2) {
      a.x.push_back(static_cast<double>(ctx));
      a.y.push_back(cost::kv_bytes_per_sequence(sh.model, s.precision.kv_cache, ctx, s.workload.kv_block_tokens));
      b.x.push_back(static_cast<double>(ctx));
      b.y.push_back(static_cast<double>(cost::kv_fit(v, ctx).sequences));
    }
    per_seq.series.push_back(std::move(a));
    fit.series.push_back(std::move(b));
    table.add_row({sh.name, cost::kv_bytes_per_token(sh.model, s.precision.kv_cache)});
  }
  const std::string dtype(to_string(s.precision.kv_cache));
  return {"KV cache",
          {table,
           reports::Figure{"kv_per_sequence",
                           fmt::format("KV cache of one sequence at {} ({}-token pages), the scenario's attention "
                                       "against MHA- and GQA-shaped caches of the same model (DeepSeek-V2 KV table).",
                                       dtype, s.workload.kv_block_tokens),
                           reports::render_svg(per_seq)},
           reports::Figure{"kv_fit",
                           "Whole sequences that fit on one GPU next to its share of the weights (TP x PP, experts "
                           "over EP) and a 10% activation reserve.",
                           reports::render_svg(fit)}}};
}

reports::Section mhc_section(const Scenario& s, scenarios::ScenarioTemplate& tpl) {
  reports::LineChart traffic, step;
  traffic.title = "Residual-stream traffic per token and layer vs n";
  traffic.x = {"mHC expansion rate n", "streams"};
  traffic.y = {"HBM traffic, forward + backward + recompute", "KiB", false, 1.0 / kKiB};
  step.title = "Training step overhead of mHC vs n";
  step.x = traffic.x;
  step.y = {"step time over the plain residual (n = 1)", "%", false, 100};
  reports::Series fused{"fused kernels", {}, {}}, unfused{"unfused (Table 2)", {}, {}, true};
  reports::Series overhead{"analytic step", {}, {}};
  double base_step = 0;
  for (int64_t n : {1, 2, 4, 8}) {
    ModelSpec m = s.model;
    m.mhc_n = n;
    m.residual = n == 1 ? ResidualKind::Residual : ResidualKind::MHC;
    fused.x.push_back(static_cast<double>(n));
    unfused.x.push_back(static_cast<double>(n));
    fused.y.push_back(cost::residual_traffic_per_token(m, s.precision, true, s.parallel.recompute_mhc).total_bytes());
    unfused.y.push_back(cost::residual_traffic_per_token(m, s.precision, false, s.parallel.recompute_mhc).total_bytes());
    if (s.workload.mode != WorkloadMode::Train) continue;
    const auto v = variant(tpl, s, {{"model.mhc.kind", n == 1 ? "residual" : "mhc"}, {"model.mhc.n", std::to_string(n)}});
    if (!v) continue;
    const double t = cost::step_estimate(*v).step_seconds;
    if (n == 1) base_step = t;
    if (base_step > 0) {
      overhead.x.push_back(static_cast<double>(n));
      overhead.y.push_back(t / base_step - 1);
    }
  }
  traffic.series = {fused, unfused};
  reports::Section sec{"mHC overhead", {reports::Figure{
      "mhc_traffic",
      fmt::format("Memory traffic of one residual sublayer per token outside F (mHC paper Table 2 and 4.3), "
                  "{} activations, recompute {}.", to_string(s.precision.activations),
                  s.parallel.recompute_mhc ? "on" : "off"),
      reports::render_svg(traffic)}}};
  if (!overhead.x.empty()) {
    step.series = {overhead};
    sec.blocks.emplace_back(reports::Figure{
        "mhc_step", "Analytic training step of this scenario with the residual widened to n streams, relative to "
                    "n = 1 (the mHC paper reports +6.7% at n = 4 with all its fusions).",
        reports::render_svg(step)});
  }
  return sec;
}

}  // namespace mhcsim::sweep::detail
