// Report sections: model and hardware summary; training cost or serving capacity.
#include <fmt/format.h>

#include <cmath>

#include "mhcsim/cost/energy.h"
#include "mhcsim/cost/flops.h"
#include "mhcsim/cost/kv_cache.h"
#include "mhcsim/cost/layer_ops.h"
#include "mhcsim/cost/serve.h"
#include "mhcsim/cost/serving_step.h"
#include "mhcsim/cost/step.h"
#include "mhcsim/reports/svg.h"
#include "mhcsim/sweep/feasibility.h"
#include "mhcsim/units.h"
#include "report_parts.h"

namespace mhcsim::sweep::detail {
namespace {

using reports::Quantity;
int64_t i(int64_t v) { return v; }
std::string str(std::string_view v) { return std::string(v); }

// The batch trade-off: throughput per node against the per-sequence latency, one point per
// batch size up to what the KV cache holds.
reports::Figure throughput_vs_latency(const Scenario& s, int64_t max_batch) {
  const bool decode = s.workload.phase == ServePhase::Decode;
  reports::LineChart chart;
  chart.title = fmt::format("{} throughput vs latency, batch 1 to {}", to_string(s.workload.phase), max_batch);
  chart.x = {decode ? "time per output token" : "time to first token", "ms", true, 1e3};
  chart.y = {"tokens/s per node", "tokens/s", true};
  reports::Series points{fmt::format("context {}", s.workload.context_len), {}, {}};
  Scenario v = s;
  for (int64_t batch = 1; batch <= max_batch; batch *= 2) {
    v.workload.batch_seqs = batch;
    const auto e = cost::serve_estimate(v);
    points.x.push_back(e.latency_seconds());
    points.y.push_back(e.tokens_per_second_per_node);
  }
  chart.series.push_back(std::move(points));
  return reports::figure(
      "serve_throughput_latency",
      "Each point doubles the batch per replica (1, 2, 4, ...) while the KV cache still holds it; the "
      "scenario's own batch is in the table above.",
      chart);
}

int64_t nodes_of(const HardwareSpec& h, int64_t gpus) { return (gpus + h.gpus_per_node - 1) / h.gpus_per_node; }

}  // namespace

reports::Section headline_section(const Scenario& s) {
  const auto& h = s.hardware;
  const auto cap = capacity(s);
  const std::string fits = cap.infeasible_reason.empty() ? "yes" : "no: " + cap.infeasible_reason;
  std::vector<Quantity> q;
  if (s.workload.mode == WorkloadMode::Train) {
    const auto e = cost::step_estimate(s);
    q = {{"step_s", "step time", e.step_seconds, "s", 1, 3},
         {"tokens_per_s", "training throughput", e.tokens_per_second, "M tokens/s", 1e-6, 3},
         {"mfu", "MFU (BF16 peak, non-causal)", e.mfu, "%", 100, 1},
         {"bubble_fraction", "pipeline bubble", e.bubble_fraction(), "%", 100, 1},
         {"gpus", fmt::format("GPUs ({})", h.gpu.name), i(h.gpus), fmt::format("GPUs = {} nodes", nodes_of(h, h.gpus))},
         {"memory_per_gpu_bytes", "memory per GPU", cap.memory_per_gpu_bytes,
          fmt::format("GiB of {:.0f}", h.gpu.hbm_bytes / kGiB), 1.0 / kGiB, 1},
         {"fits", "fits in HBM", fits, ""}};
    if (s.workload.token_budget > 0) {
      q.push_back({"wall_days", fmt::format("wall-clock for {:.2f} T tokens", s.workload.token_budget * 1e-12),
                   e.gpu_hours_for_budget / static_cast<double>(h.gpus) / 24, "days", 1, 1});
      if (h.price_per_gpu_hour > 0)
        q.push_back(
            {"cost_usd", "cost for the budget", e.gpu_hours_for_budget * h.price_per_gpu_hour, "M USD", 1e-6, 2});
      if (h.gpu.tdp_watts > 0)
        q.push_back({"energy_mwh", fmt::format("GPU energy at TDP x PUE {:.2f}", h.pue),
                     cost::energy_mwh(e.gpu_hours_for_budget, h), "MWh", 1, 0});
    }
  } else {
    const auto e = cost::serve_estimate(s);
    const bool decode = s.workload.phase == ServePhase::Decode;
    q = {{"tokens_per_s_per_node", decode ? "output tokens/s per node" : "prompt tokens/s per node",
          e.tokens_per_second_per_node, "tokens/s", 1, 0},
         {"latency_s", decode ? "time per output token" : "time to first token", e.latency_seconds(), "ms", 1e3, 1},
         {"batch_seqs", "batch per replica", i(s.workload.batch_seqs), "sequences"},
         {"fits", "fits in HBM (weights + KV cache)", fits, ""}};
    if (h.price_per_gpu_hour > 0)
      q.push_back({"usd_per_million_tokens", decode ? "cost per 1M output tokens" : "cost per 1M prompt tokens",
                   cost::usd_per_million_tokens(h.price_per_gpu_hour, e.tokens_per_second_per_gpu),
                   "USD (all GPUs busy)", 1, 3});
    if (s.workload.target_tokens_per_second > 0)
      q.push_back({"gpus_for_target", cost::gpus_for_target_label(s.workload.phase), e.gpus_for_target,
                   fmt::format("GPUs = {} nodes", e.nodes_for_target)});
  }
  return {"Headline",
          {reports::QuantityList{fmt::format("{} on {} x {}", s.model.name, h.gpus, h.gpu.name), std::move(q)}}};
}

reports::Section summary_section(const Scenario& s) {
  const auto& m = s.model;
  const auto& h = s.hardware;
  const auto& p = s.parallel;
  const auto params = cost::parameter_count(m);
  reports::QuantityList model{
      "model",
      {{"model", "name", m.name, ""},
       {"layers", "layers", i(m.layers), "layers"},
       {"hidden", "hidden size", i(m.hidden), "elements"},
       {"attention", "attention", str(to_string(m.attention)), ""},
       {"heads", "attention heads", i(m.heads), "heads"},
       {"routed_experts", "routed experts (top-k)", fmt::format("{} (top-{})", m.routed_experts, m.top_k), "experts"},
       {"residual", "residual (mHC n)", fmt::format("{} (n = {})", to_string(m.residual), m.mhc_n), ""},
       {"parameters", "parameters, total", params.total(), "B params", 1e-9, 1},
       {"activated_parameters", "parameters, activated per token", params.activated(m), "B params", 1e-9, 1}}};
  reports::QuantityList hw{"hardware",
                           {{"gpu", "GPU", h.gpu.name, ""},
                            {"gpus", "GPUs in the job", i(h.gpus), "GPUs"},
                            {"nodes", "nodes", nodes_of(h, h.gpus), "nodes"},
                            {"hbm_bytes", "HBM per GPU", h.gpu.hbm_bytes, "GiB", 1.0 / kGiB, 1},
                            {"hbm_gb_per_s", "HBM bandwidth", h.gpu.hbm_gb_per_s, "GB/s", 1, 0},
                            {"bf16_tflops", "BF16 dense peak", h.gpu.bf16_tflops, "TFLOP/s", 1, 0},
                            {"fp8_tflops", "FP8 dense peak", h.gpu.fp8_tflops, "TFLOP/s", 1, 0},
                            {"nvlink_gb_per_s", "NVLink per GPU per direction", h.gpu.nvlink_gb_per_s, "GB/s", 1, 0},
                            {"nic_gb_per_s_per_gpu", "NIC per GPU per direction", h.nic_gb_per_s_per_gpu, "GB/s", 1, 0},
                            {"price_per_gpu_hour", "price", h.price_per_gpu_hour, "USD/GPU-hour", 1, 2}}};
  const bool train = s.workload.mode == WorkloadMode::Train;
  reports::QuantityList par{
      "parallelism and workload",
      {{"tp_pp_dp_ep", "TP x PP x DP (EP)", fmt::format("{} x {} x {} (EP {})", p.tp, p.pp, p.dp, p.ep), "ranks"}}};
  if (train) {
    par.quantities.push_back({"schedule", "pipeline schedule", str(to_string(p.schedule)), ""});
    par.quantities.push_back({"micro_batches", "micro-batches per step", i(p.micro_batches), "micro-batches"});
  } else {
    // Serving splits an iteration by itself (the training keys above do not apply): two
    // overlapped micro-batches with parallel.overlap and EP where faster, PP of them with a
    // pipeline.
    par.quantities.push_back({"micro_batches", "micro-batches per iteration (the scenario's batch)",
                              i(cost::serve_estimate(s).micro_batches), "micro-batches"});
    par.quantities.push_back({"phase", "serving phase", str(to_string(s.workload.phase)), ""});
  }
  par.quantities.push_back({"mode", "workload", str(to_string(s.workload.mode)), ""});
  par.quantities.push_back({"seq_len", train ? "sequence length" : "context length",
                            i(train ? s.workload.seq_len : s.workload.context_len), "tokens"});
  reports::Section sec{"Model and hardware", {}};
  if (!s.source.empty()) sec.blocks.emplace_back(reports::Paragraph{"Source of the configuration: " + s.source});
  sec.blocks.emplace_back(std::move(model));
  sec.blocks.emplace_back(std::move(hw));
  sec.blocks.emplace_back(std::move(par));
  return sec;
}

reports::Section cost_section(const Scenario& s) {
  const auto& h = s.hardware;
  if (s.workload.mode == WorkloadMode::Train) {
    const auto est = cost::step_estimate(s);
    const double gpu_hours = est.gpu_hours_for_budget;
    std::vector<Quantity> q = {
        {"token_budget", "token budget", s.workload.token_budget, "T tokens", 1e-12, 2},
        {"tokens_per_s", "training throughput", est.tokens_per_second, "tokens/s", 1, 0},
        {"gpu_hours_per_trillion_tokens", "GPU-hours per 1T tokens", est.gpu_hours_per_trillion_tokens, "K GPU-hours",
         1e-3, 1},
        {"gpu_hours", "GPU-hours for the budget", gpu_hours, "M GPU-hours", 1e-6, 3},
        {"gpu_days", "GPU-days for the budget", gpu_hours / 24, "K GPU-days", 1e-3, 1},
        {"wall_days", "wall-clock on this job", gpu_hours / static_cast<double>(h.gpus) / 24, "days", 1, 1}};
    if (h.price_per_gpu_hour > 0)
      q.push_back({"cost_usd", fmt::format("cost at {:.2f} USD/GPU-hour", h.price_per_gpu_hour),
                   gpu_hours * h.price_per_gpu_hour, "M USD", 1e-6, 2});
    if (h.gpu.tdp_watts > 0)
      q.push_back({"energy_mwh", fmt::format("GPU energy: {:.0f} W TDP x PUE {:.2f}", h.gpu.tdp_watts, h.pue),
                   cost::energy_mwh(gpu_hours, h), "MWh", 1, 0});
    reports::Section sec{"Training cost", {reports::QuantityList{"GPUs x days for the token budget", std::move(q)}}};
    sec.blocks.emplace_back(reports::Paragraph{
        "Energy counts every GPU at its board power (TDP) for the GPU-hours, times hardware.pue (default 1: the "
        "GPUs alone; set the facility's PUE to include cooling and power delivery). It is an upper bound on the "
        "GPUs' draw and leaves out host CPUs, NICs and switches unless the PUE covers them."});
    if (h.price_per_gpu_hour <= 0)
      sec.blocks.emplace_back(reports::Paragraph{"No price: set hardware.price_per_gpu_hour to get the cost in USD."});
    return sec;
  }
  const auto fit = cost::kv_fit(s, s.workload.context_len);
  const int64_t replica_gpus = s.parallel.tp * s.parallel.pp;
  // Whole replicas per node where a replica fits one (TP 6 on 8 GPUs: one); a replica over
  // several nodes puts its share of every sequence on each.
  const double sequences_per_node =
      replica_gpus <= h.gpus_per_node
          ? static_cast<double>(fit.sequences * (h.gpus_per_node / replica_gpus))
          : static_cast<double>(fit.sequences) * h.gpus_per_node / static_cast<double>(replica_gpus);
  reports::Section sec{
      "Serving capacity",
      {reports::QuantityList{
          "one replica at the scenario's context",
          {{"context_len", "context length", s.workload.context_len, "tokens"},
           {"batch_seqs", "batch (scenario)", s.workload.batch_seqs, "sequences/replica"},
           {"weight_bytes", "weights on this GPU", fit.weight_bytes, "GiB", 1.0 / kGiB, 2},
           {"kv_budget_bytes", "HBM left for the KV cache", fit.kv_budget_bytes, "GiB", 1.0 / kGiB, 2},
           {"bytes_per_sequence", "KV cache per sequence (this GPU's share)", fit.bytes_per_sequence, "MiB", 1.0 / kMiB,
            2},
           // A replica of TP x PP GPUs holds a share of each of its sequences on every GPU: what
           // fits is counted per replica, and a node holds gpus_per_node / (TP x PP) replicas.
           {"sequences", fmt::format("sequences per replica ({} GPU{})", replica_gpus, replica_gpus == 1 ? "" : "s"),
            fit.sequences, "sequences"},
           {"sequences_per_node", "sequences per node", sequences_per_node, "sequences", 1, 0}}}}};
  const auto e = cost::serve_estimate(s);
  const bool decode = s.workload.phase == ServePhase::Decode;
  std::vector<Quantity> rate = {
      {"latency_s", decode ? "time per output token" : "time to first token", e.latency_seconds(), "ms", 1e3, 1},
      {"tokens_per_s_per_gpu", decode ? "output tokens/s per GPU" : "prompt tokens/s per GPU",
       e.tokens_per_second_per_gpu, "tokens/s", 1, 0},
      {"tokens_per_s_per_node", fmt::format("tokens/s per node ({} GPUs)", h.gpus_per_node),
       e.tokens_per_second_per_node, "tokens/s", 1, 0}};
  if (s.workload.target_tokens_per_second > 0) {
    rate.push_back({"target_tokens_per_second", fmt::format("serving load ({} tokens)", decode ? "output" : "prompt"),
                    s.workload.target_tokens_per_second, "tokens/s", 1, 0});
    rate.push_back({"gpus_for_target", cost::gpus_for_target_label(s.workload.phase), e.gpus_for_target, "GPUs"});
    rate.push_back({"nodes_for_target", "nodes for the load", e.nodes_for_target, "nodes"});
    if (h.price_per_gpu_hour > 0)
      rate.push_back({"cost_per_hour_usd", fmt::format("cost at {:.2f} USD/GPU-hour", h.price_per_gpu_hour),
                      static_cast<double>(e.gpus_for_target) * h.price_per_gpu_hour, "USD/hour", 1, 0});
  }
  if (h.price_per_gpu_hour > 0)
    rate.push_back({"usd_per_million_tokens",
                    fmt::format("cost per 1M {} tokens (all GPUs busy)", decode ? "output" : "prompt"),
                    cost::usd_per_million_tokens(h.price_per_gpu_hour, e.tokens_per_second_per_gpu), "USD", 1, 3});
  sec.blocks.emplace_back(
      reports::QuantityList{fmt::format("{} throughput at the scenario's batch ({} sequences per replica)",
                                        to_string(s.workload.phase), s.workload.batch_seqs),
                            std::move(rate)});
  sec.blocks.emplace_back(reports::Paragraph{
      "The serving simulator's iteration model at this batch (cost::serve_estimate): GEMMs and memory-bound "
      "kernels op by op, streaming only the experts the batch hits; attention the longer of its FLOPs and its "
      "KV bytes; DeepEP's low-latency all-to-all at decode, its normal kernels at prefill, overlapping the other "
      "micro-batch up to parallel.overlap. Every GPU is taken as busy at this batch in this phase alone: the " +
      std::string(s.workload.phase == ServePhase::Decode ? "prompts' prefill" : "decode") +
      ", queueing and latency SLOs are left out, so the GPUs for the load here are a floor; the request-level "
      "simulation (Serving under load, mhcsim serve, --max-rate with SLOs) sizes a fleet that meets them."});
  if (fit.sequences >= 1) sec.blocks.emplace_back(throughput_vs_latency(s, fit.sequences));
  return sec;
}

}  // namespace mhcsim::sweep::detail
