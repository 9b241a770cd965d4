// Report sections: memory per GPU stacked by kind, and the step-time breakdown with the
// slowest chunk's time by op kind.
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <string>
#include <utility>

#include "mhcsim/cost/kv_cache.h"
#include "mhcsim/cost/layer_ops.h"
#include "mhcsim/cost/memory.h"
#include "mhcsim/cost/step.h"
#include "mhcsim/reports/svg.h"
#include "mhcsim/sim/simulate.h"
#include "mhcsim/sim/step_terms.h"
#include "mhcsim/units.h"
#include "report_parts.h"

namespace mhcsim::sweep::detail {

reports::Section memory_section(const Scenario& s) {
  reports::StackedBarChart c;
  c.title = "Memory per GPU by kind";
  c.category_label = s.workload.mode == WorkloadMode::Train ? "most loaded pipeline rank" : "serving GPU";
  c.value = {"memory per GPU", "GiB", false, 1.0 / kGiB};
  c.limit = s.hardware.gpu.hbm_bytes;
  c.limit_label = "HBM";
  std::string verdict;
  if (s.workload.mode == WorkloadMode::Train) {
    const auto m = cost::training_memory(s);
    c.parts = {"weights", "gradients", "master weights", "optimizer states", "activations"};
    c.categories = {fmt::format("{} x{} micro-batch chunks", to_string(s.parallel.schedule), m.activation_chunks)};
    c.values = {{m.weight_bytes, m.grad_bytes, m.master_weight_bytes, m.optimizer_bytes, m.activation_bytes}};
    verdict = fmt::format("{:.1f} GiB of {:.1f} GiB HBM: {}", m.total_bytes() / kGiB, m.hbm_bytes / kGiB,
                          m.fits() ? "fits" : "does NOT fit");
    if (m.recompute_block > 0)
      verdict += fmt::format("; mHC recompute (block L_r = {} layers) saves {:.2f} GiB", m.recompute_block,
                             m.mhc_recompute_saved_bytes / kGiB);
  } else {
    const auto fit = cost::kv_fit(s, s.workload.context_len);
    const double kv = static_cast<double>(s.workload.batch_seqs) * fit.bytes_per_sequence;
    c.parts = {"weights", "KV cache (batch)", "activation reserve"};
    c.categories = {fmt::format("batch {} x {} tokens", s.workload.batch_seqs, s.workload.context_len)};
    c.values = {{fit.weight_bytes, kv, fit.reserve_bytes}};
    verdict = fmt::format("{:.1f} GiB of {:.1f} GiB HBM: {}", (fit.weight_bytes + kv + fit.reserve_bytes) / kGiB,
                          fit.hbm_bytes / kGiB, fit.sequences >= s.workload.batch_seqs ? "fits" : "does NOT fit");
  }
  return {"Memory per GPU",
          {reports::Paragraph{verdict},
           reports::figure("memory", "Memory per GPU stacked by kind (cost model); dashed line: HBM capacity.", c)}};
}

namespace {

// The slowest chunk's time by op kind (cost::OpKind: forward + backward + recompute of its
// ops) and its EP all-to-all, which the chunk prices apart from its ops: dispatch + combine in
// the forward and their mirror in the backward (chunk_cost.h).
std::pair<reports::Table, reports::Figure> chunk_kind_blocks(const Scenario& s, const cost::StepEstimate& est) {
  const auto& chunk = est.chunk;
  const std::array<const char*, cost::kOpKinds> what_kind = {
      chunk.has_head ? "linear layers and LM head (forward, dgrad, wgrad)" : "linear layers (forward, dgrad, wgrad)",
      "attention core", "norms, activations, casts, mHC kernels", "TP / CP collectives"};
  std::vector<std::string> names;
  std::vector<std::string> what;
  std::vector<double> seconds;
  for (int k = 0; k < cost::kOpKinds; ++k) {
    names.emplace_back(cost::to_string(static_cast<cost::OpKind>(k)));
    what.emplace_back(what_kind[static_cast<size_t>(k)]);
    seconds.push_back(chunk.kind_seconds[static_cast<size_t>(k)]);
  }
  const double a2a = 2.0 * chunk.a2a_forward_seconds();
  if (a2a > 0) {
    names.emplace_back("EP all-to-all");
    what.emplace_back(fmt::format("dispatch {:.3f} ms + combine {:.3f} ms forward, mirrored in the backward",
                                  1e3 * chunk.dispatch_seconds, 1e3 * chunk.combine_seconds));
    seconds.push_back(a2a);
  }
  double total = 0;
  for (double v : seconds) total += v;
  reports::Table t(
      "Time per chunk by op kind",
      {{"kind", "kind"}, {"ops", "ops"}, {"seconds", "time (ms)", 3, 1e3}, {"share_pct", "share of the chunk (%)", 1}});
  for (size_t i = 0; i < seconds.size(); ++i)
    t.add_row({names[i], what[i], seconds[i], total > 0 ? 100.0 * seconds[i] / total : 0.0});
  t.add_row({std::string("total"), reports::Cell{}, total, total > 0 ? 100.0 : 0.0});

  reports::StackedBarChart c;
  c.title = "Time per chunk by op kind";
  c.category_label = "pipeline chunk";
  c.value = {"time per chunk, forward + backward", "ms", false, 1e3};
  c.parts = names;
  // What the chunk holds besides its layers: the last stage's head and MTP modules.
  const int64_t mtp = chunk.has_head ? s.model.mtp_depth : 0;
  const std::string extra = !chunk.has_head ? ""
                            : mtp > 0       ? fmt::format(" + {} MTP module{} + LM head", mtp, mtp == 1 ? "" : "s")
                                            : " + LM head";
  c.categories = {fmt::format("{} layer{}{}", chunk.layers, chunk.layers == 1 ? "" : "s", extra)};
  c.values = {seconds};
  return {std::move(t),
          reports::figure(
              "step_chunk_kinds",
              fmt::format("One micro-batch through the slowest pipeline chunk ({}), forward + backward + "
                          "recompute, priced op by op by the cost model ({}) and summed by op kind. The EP "
                          "all-to-all is its full time; the schedule overlaps all but {:.3f} ms of it with compute. "
                          "Stage-boundary sends are not included.",
                          c.categories.front(),
                          s.calibration ? "calibrated rates" : "datasheet peaks x default efficiencies",
                          1e3 * est.exposed_a2a_seconds),
              c)};
}

}  // namespace

reports::Section step_section(const Scenario& s) {
  const auto est = cost::step_estimate(s);
  const auto sim = sim::simulate(s);
  // In the terms of sim/step_terms.h, which add up to the step on both sides.
  const auto analytic = sim::analytic_step_terms(est);
  // The simulator's pacing rank, whose terms `simulate` reports (step_terms.h): they add up
  // to the simulated step as the analytic ones add up to `step`'s.
  const auto simulated = sim.stats.terms();
  reports::StackedBarChart c;
  c.title = "Step time breakdown";
  c.category_label = "model";
  c.value = {"time per step", "s"};
  c.parts = {"compute", "exposed communication (EP, PP)", "exposed DP sync", "pipeline bubble"};
  c.categories = {"analytic", "simulated"};
  c.values = {
      {analytic.compute_seconds, analytic.exposed_comm_seconds, analytic.grad_sync_seconds, analytic.bubble_seconds},
      {simulated.compute_seconds, simulated.exposed_comm_seconds, simulated.grad_sync_seconds,
       simulated.bubble_seconds}};
  const double sim_step = sim.stats.step_seconds;  // ends with the exposed DP sync (sim/README.md)
  reports::QuantityList q{
      "step",
      {{"step_time_s", "step time, analytic", est.step_seconds, "s", 1, 3},
       {"sim_step_time_s", "step time, simulated", sim_step, "s", 1, 3},
       {"sim_vs_analytic", "simulated vs analytic", 100 * (sim_step / est.step_seconds - 1), "%", 1, 2},
       {"tokens_per_step", "tokens per step", est.tokens_per_step, "M tokens", 1e-6, 2},
       {"tokens_per_s", "throughput", est.tokens_per_second, "tokens/s", 1, 0},
       {"mfu", "MFU (non-causal, BF16 peak)", 100 * est.mfu, "%", 1, 2},
       {"mfu_causal", "MFU (causal)", 100 * est.mfu_causal, "%", 1, 2},
       {"bubble_fraction", "bubble fraction, analytic", 100 * est.bubble_fraction(), "%", 1, 2},
       {"layers_per_chunk", "layers per pipeline chunk", est.layers_per_chunk, "layers"}}};
  auto [kinds_table, kinds_chart] = chunk_kind_blocks(s, est);
  return {"Step time",
          {q,
           reports::figure("step",
                           "Step time split into compute, exposed communication and pipeline bubble: the "
                           "analytic model (bubble by the schedule's formula) next to the simulator's "
                           "pacing rank (the one with the least bubble, as `simulate` reports it; "
                           "sim/README.md). The cost model prices memory-bound (HBM) kernels inside the "
                           "compute phases; it does not report them separately.",
                           c),
           std::move(kinds_table), std::move(kinds_chart)}};
}

}  // namespace mhcsim::sweep::detail
