// Report section (issue 19): what mHC's projection buys against unconstrained HC, on the random
// model of learned mappings at the scenario's depth and n (stability library): the composite
// gain against depth, and against Sinkhorn's t_max in fp32 and bf16.
#include <fmt/format.h>

#include <algorithm>

#include "mhcsim/reports/svg.h"
#include "mhcsim/stability/study.h"
#include "report_parts.h"

namespace mhcsim::sweep::detail {
namespace {

constexpr int64_t kReportSamples = 200;  // ~0.1 s at the 27B depth; the CLI takes more
constexpr uint64_t kReportSeed = 1;

double peak_at(const stability::VariantGain& r, size_t l) {
  return std::max(r.forward[l].median, r.backward[l].median);
}

}  // namespace

std::optional<reports::Section> stability_section(const Scenario& s) {
  if (s.model.residual == ResidualKind::Residual || s.model.mhc_n < 2) return std::nullopt;
  const int t_max = static_cast<int>(s.model.sinkhorn_iters);
  std::vector<int> iters = {1, 2, 3, 5, 10, 20, t_max};
  std::sort(iters.begin(), iters.end());
  iters.erase(std::unique(iters.begin(), iters.end()), iters.end());
  const stability::RandomModel model{s.model.mhc_n, 2 * s.model.layers, stability::kIdentityBias,
                                     stability::kPaperHcNoise};
  const auto results = stability::random_study(model, kReportSamples, kReportSeed, stability::standard_variants(iters));

  reports::LineChart depth;
  depth.title = "Composite residual gain vs depth, HC vs mHC";
  depth.x = {"depth", "mappings (2 per layer)"};
  depth.y = {"median max(forward, backward) gain", "x", true};
  reports::LineChart sinkhorn;
  sinkhorn.title = "mHC composite gain vs Sinkhorn iterations";
  sinkhorn.x = {"Sinkhorn iterations t_max", "iterations", true};
  sinkhorn.y = {"median peak gain over the depth", "x"};
  sinkhorn.y_from_zero = false;
  reports::Series fp32{"fp32", {}, {}}, bf16{"bf16", {}, {}, true};
  for (const auto& r : results) {
    const bool at_t_max = r.variant.sinkhorn_iters == t_max;
    if (r.variant.kind == stability::MappingKind::HC || at_t_max) {
      reports::Series curve{r.variant.kind == stability::MappingKind::HC
                                ? std::string("HC (unconstrained)")
                                : fmt::format("mHC, t_max = {}, {}", t_max, stability::precision_name(r.variant.kind)),
                            {},
                            {},
                            r.variant.kind == stability::MappingKind::MhcBf16};
      for (size_t l = 0; l < r.forward.size(); ++l) {
        curve.x.push_back(static_cast<double>(l + 1));
        curve.y.push_back(peak_at(r, l));
      }
      depth.series.push_back(std::move(curve));
    }
    if (r.variant.kind == stability::MappingKind::HC) continue;
    auto& series = r.variant.kind == stability::MappingKind::MhcFp32 ? fp32 : bf16;
    series.x.push_back(r.variant.sinkhorn_iters);
    series.y.push_back(r.peak.median);
  }
  sinkhorn.series = {fp32, bf16};
  const std::string model_text = fmt::format(
      "random model raw = {} I + {} N(0, 1) per mapping ({} draws, seed {}; the noise scale at which HC's "
      "median peak is ~3000 at the 27B depth, the mHC paper's Fig. 3), n = {}, {} layers x 2 mappings",
      stability::kIdentityBias, stability::kPaperHcNoise, kReportSamples, kReportSeed, s.model.mhc_n, s.model.layers);
  return reports::Section{
      "mHC stability",
      {reports::figure("stability_depth",
                       fmt::format("Gain of the composite residual mapping H_res^l ... H_res^1 (max absolute row or "
                                   "column sum) for HC and for mHC's Sinkhorn projection of the same matrices; {}.",
                                   model_text),
                       depth),
       reports::figure("stability_sinkhorn",
                       "Peak composite gain of mHC against the Sinkhorn iterations, fp32 and with every iterate "
                       "rounded to bf16 (the paper keeps Sinkhorn in fp32); `mhcsim stability` prints the table.",
                       sinkhorn)}};
}

}  // namespace mhcsim::sweep::detail
