#include "mhcsim/search/report.h"

#include <fmt/format.h>

#include "mhcsim/reports/svg.h"
#include "mhcsim/units.h"
#include "mhcsim/version.h"

namespace mhcsim::search {
namespace {

reports::Section headline(const Scenario& base, const SearchResult& r, const std::optional<Priced>& shipped) {
  const auto& best = r.found.top.front();
  std::vector<reports::Quantity> q = {
      {"objective", "ranked by", std::string(objective_name(r.objective)), ""},
      {"global_batch_seqs", "global batch", r.global_batch_seqs, "sequences"},
      {"tokens_per_s", "best: training throughput", best.tokens_per_s, "M tokens/s", 1e-6, 3},
      {"step_time_s", "best: step time", best.step_time_s, "s", 1, 3},
      {"mfu", "best: MFU", best.mfu, "%", 100, 1},
      {"memory_per_gpu_bytes", "best: memory per GPU", best.memory_per_gpu_bytes, "GiB", 1.0 / kGiB, 1},
      {"gpus", "best: GPUs", best.candidate.gpus, "GPUs"}};
  if (shipped) {
    const double vb = objective_value(r.objective, best), vs = objective_value(r.objective, *shipped);
    q.push_back(
        {"shipped_tokens_per_s", "scenario's own layout: throughput", shipped->tokens_per_s, "M tokens/s", 1e-6, 3});
    q.push_back({"gain", fmt::format("best vs the scenario's layout ({})", objective_name(r.objective)), (vb - vs) / vs,
                 "%", 100, 1});
  }
  reports::Section sec{
      "Headline",
      {reports::QuantityList{fmt::format("{} at {} sequences per step", base.model.name, r.global_batch_seqs),
                             std::move(q)}}};
  if (shipped)
    sec.blocks.emplace_back(reports::Paragraph{"The best layout differs from the scenario's in: " +
                                               differences(candidate_of(base), best.candidate)});
  return sec;
}

reports::LineChart front_chart(const std::string& title, reports::Axis x, const std::vector<Priced>& front,
                               double (*x_of)(const Priced&)) {
  reports::LineChart c;
  c.title = title;
  c.x = std::move(x);
  c.y = {"training throughput", "M tokens/s", false, 1e-6};
  reports::Series s{"Pareto front", {}, {}};
  for (const auto& p : front) {
    s.x.push_back(x_of(p));
    s.y.push_back(p.tokens_per_s);
  }
  c.series.push_back(std::move(s));
  return c;
}

reports::Section fronts(const SearchResult& r) {
  reports::Section sec{
      "Pareto fronts",
      {reports::Paragraph{
          "Every point on a front is a configuration no other beats on both axes: more throughput needs more "
          "memory per GPU (first plot) or more GPUs (second). The data of each plot is in its CSV."}}};
  const auto& f = r.found;
  if (!f.memory_front.empty())
    sec.blocks.emplace_back(
        reports::figure("front_memory", "Throughput against memory per GPU: the layouts that buy speed with HBM.",
                        front_chart("Throughput vs memory per GPU", {"memory per GPU", "GiB", false, 1.0 / kGiB},
                                    f.memory_front, [](const Priced& p) { return p.memory_per_gpu_bytes; })));
  if (!f.gpu_front.empty())
    sec.blocks.emplace_back(reports::figure(
        "front_gpus", "Throughput against job size: what each step up in GPUs buys at the same global batch.",
        front_chart("Throughput vs GPUs", {"GPUs", "GPUs", true}, f.gpu_front,
                    [](const Priced& p) { return static_cast<double>(p.candidate.gpus); })));
  return sec;
}

reports::Section pruned(const SearchResult& r) {
  reports::Table t("points cut before pricing, per reason (in the order the rules apply)",
                   {{"reason", "reason"}, {"points", "points"}});
  for (size_t i = 0; i < kPruneReasons; ++i)
    if (const int64_t n = r.found.pruned.points[i]; n > 0)
      t.add_row({std::string(prune_name(static_cast<Prune>(i))), n});
  return {"Search space",
          {reports::Paragraph{fmt::format("{} points in the space, {} divide, {} priced.", r.space_points,
                                          r.found.dividing_points, r.found.priced_points)},
           std::move(t)}};
}

}  // namespace

reports::Document search_report(const Scenario& base, const SearchResult& r, const reports::Table& top,
                                const std::optional<Priced>& shipped) {
  reports::Document doc;
  doc.title = fmt::format("Parallel layout search: {}", base.name);
  doc.subtitle = fmt::format("{} on {} ({}); mhcsim {}, analytic model", base.model.name, base.hardware.gpu.name,
                             base.path, kVersion);
  doc.sections.push_back(headline(base, r, shipped));
  doc.sections.push_back({"Best configurations", {top}});
  doc.sections.push_back(fronts(r));
  doc.sections.push_back(pruned(r));
  return doc;
}

}  // namespace mhcsim::search
