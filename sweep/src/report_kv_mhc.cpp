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

reports::Section kv_section(const Scenario& s) {
  // The layouts `kv` lists, but MQA: the figure compares the scenario's with MHA and GQA.
  std::vector<cost::KvLayout> shapes;
  for (auto& l : cost::kv_layouts(s.model))
    if (l.attention != AttentionKind::MQA && (l.is_model || l.attention != AttentionKind::MLA))
      shapes.push_back(std::move(l));
  const auto name_of = [](const cost::KvLayout& l) {
    return fmt::format("{}{}: {}", to_string(l.attention), l.is_model ? " (scenario)" : "", l.shape);
  };

  reports::LineChart per_seq, fit;
  per_seq.title = "KV cache per sequence vs context length";
  per_seq.x = {"context length", "tokens", true};
  per_seq.y = {"KV cache per sequence, all layers", "GiB", true, 1.0 / kGiB};
  const int64_t replica_gpus = s.parallel.tp * s.parallel.pp;
  fit.title = fmt::format("Sequences per replica ({} x {}) vs context length", replica_gpus, s.hardware.gpu.name);
  fit.x = per_seq.x;
  // Log scale: at long contexts the interesting counts are a handful, next to thousands at 1K.
  fit.y = {"sequences that fit in HBM", "sequences", true};
  reports::Table table("KV cache per token (the layouts of `mhcsim kv`)",
                       {{"attention", "attention"}, {"kv_bytes_per_token", "KV per token (KiB)", 2, 1.0 / kKiB}});
  for (const auto& sh : shapes) {
    reports::Series a{name_of(sh), {}, {}}, b{name_of(sh), {}, {}};
    Scenario v = s;
    v.model = sh.model;
    for (int64_t ctx = 1024; ctx <= 128 * 1024; ctx *= 2) {
      a.x.push_back(static_cast<double>(ctx));
      a.y.push_back(cost::kv_bytes_per_sequence(sh.model, s.precision.kv_cache, ctx, s.workload.kv_block_tokens));
      const auto seqs = cost::kv_fit(v, ctx).sequences;
      if (seqs < 1) continue;  // not one sequence fits: no point on a log axis (the caption says so)
      b.x.push_back(static_cast<double>(ctx));
      b.y.push_back(static_cast<double>(seqs));
    }
    per_seq.series.push_back(std::move(a));
    if (!b.x.empty()) fit.series.push_back(std::move(b));
    table.add_row({name_of(sh), cost::kv_bytes_per_token(sh.model, s.precision.kv_cache)});
  }
  const std::string dtype(to_string(s.precision.kv_cache));
  reports::Section sec{
      "KV cache",
      {table, reports::figure("kv_per_sequence",
                              fmt::format("KV cache of one sequence at {} ({}-token pages), the scenario's "
                                          "attention against MHA- and GQA-shaped caches of the same model "
                                          "(DeepSeek-V2 KV table).",
                                          dtype, s.workload.kv_block_tokens),
                              per_seq)}};
  if (fit.series.empty())
    sec.blocks.emplace_back(reports::Paragraph{"Not one sequence of 1K tokens fits next to this GPU's weights."});
  else
    sec.blocks.emplace_back(reports::figure(
        "kv_fit",
        "Whole sequences whose KV cache fits a replica of TP x PP GPUs (each GPU holds its share of every "
        "sequence) next to each GPU's share of the weights (experts over EP) and a 10% activation reserve; a "
        "layout stops where not one sequence fits.",
        fit));
  return sec;
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
    unfused.y.push_back(
        cost::residual_traffic_per_token(m, s.precision, false, s.parallel.recompute_mhc).total_bytes());
    if (s.workload.mode != WorkloadMode::Train) continue;
    const auto v =
        variant(tpl, s, {{"model.mhc.kind", n == 1 ? "residual" : "mhc"}, {"model.mhc.n", std::to_string(n)}});
    if (!v) continue;
    const double t = cost::step_estimate(*v).step_seconds;
    if (n == 1) base_step = t;
    if (base_step > 0) {
      overhead.x.push_back(static_cast<double>(n));
      overhead.y.push_back(t / base_step - 1);
    }
  }
  traffic.series = {fused, unfused};
  reports::Section sec{
      "mHC overhead",
      {reports::figure(
          "mhc_traffic",
          fmt::format("Memory traffic of one residual sublayer per token outside F (mHC paper Table 2 and 4.3), "
                      "{} activations, recompute {}.",
                      to_string(s.precision.activations), s.parallel.recompute_mhc ? "on" : "off"),
          traffic)}};
  if (!overhead.x.empty()) {
    step.series = {overhead};
    sec.blocks.emplace_back(
        reports::figure("mhc_step",
                        "Analytic training step of this scenario with the residual widened to n streams, relative to "
                        "n = 1 (the mHC paper reports +6.7% at n = 4 with all its fusions).",
                        step));
  }
  return sec;
}

}  // namespace mhcsim::sweep::detail
