// `mhcsim serve`: the request-level serving simulator (serving/) on the scenario: TTFT, TPOT
// and E2E percentiles, throughput per GPU and node, goodput under SLOs, KV use and cost; with
// --max-rate the highest Poisson rate that meets the SLOs at p99, and the replicas, GPUs and
// nodes the scenario's target load needs. Table (one row per simulated rate) or --json.
#include <fmt/format.h>

#include <memory>

#include "common.h"
#include "mhcsim/api/serve.h"
#include "mhcsim/api/serve_arguments.h"
#include "mhcsim/error.h"
#include "mhcsim/serving/units.h"
#include "mhcsim/sweep/progress.h"
#include "verbs.h"

namespace mhcsim::cli {

namespace {
// Flags are read as text and parsed by api::parse_serve_arguments, so every bad value is one
// line naming its flag, as the Python module's keywords get.
struct ServeOptions {
  api::ServeArguments arguments;
  bool no_chunked_prefill = false;
};

nlohmann::json serve_inputs(const Scenario& s, const api::ServeRequest& r) {
  auto in = api::scenario_inputs(s);
  const auto& c = r.config;
  const auto or_null = [](const std::string& v) { return v.empty() ? nlohmann::json() : nlohmann::json(v); };
  in["rate_per_s"] = r.rate_per_s ? nlohmann::json(*r.rate_per_s) : nlohmann::json();
  in["requests"] = r.requests_file.empty() ? nlohmann::json(r.requests) : nlohmann::json();  // the file's count
  in["requests_file"] = or_null(r.requests_file);
  in["max_rate"] = r.max_rate || r.target_rate_per_s.has_value();
  in["target_rate_per_s"] = r.target_rate_per_s ? nlohmann::json(*r.target_rate_per_s) : nlohmann::json();
  in["replicas"] = c.replicas;
  in["prefill_replicas"] = r.split_search ? nlohmann::json("auto") : nlohmann::json(c.prefill_replicas);
  in["slo_ttft_s"] = c.slo_ttft_s > 0 ? nlohmann::json(c.slo_ttft_s) : nlohmann::json();
  in["slo_tpot_s"] = c.slo_tpot_s > 0 ? nlohmann::json(c.slo_tpot_s) : nlohmann::json();
  in["seed"] = r.requests_file.empty() ? nlohmann::json(r.seed) : nlohmann::json();  // a file has no seed
  return in;
}

void run_serve(const Scenario& s, const Output& out, const ServeOptions& o) {
  auto arguments = o.arguments;
  arguments.chunked_prefill = !o.no_chunked_prefill;
  auto request = api::parse_serve_arguments(arguments);
  if (request.split_search)
    request.progress = sweep::progress_reporter(std::cerr, sweep::stderr_is_terminal(), "serve", "splits");
  const auto a = api::serve(s, request);
  if (out.json) return out.print_document(serve_inputs(s, request), api::to_json(s, request, a));
  const auto& c = request.config;
  const std::string pools =
      a.prefill_replicas > 0 ? fmt::format("{} prefill replica{} x {} + {} decode replica{} x {}", a.prefill_replicas,
                                           a.prefill_replicas > 1 ? "s" : "", a.prefill_replica_gpus, a.replicas,
                                           a.replicas > 1 ? "s" : "", a.replica_gpus)
                             : fmt::format("{} replica{} x {}", a.replicas, a.replicas > 1 ? "s" : "", a.replica_gpus);
  serving::runs_table(fmt::format("serve {}: {}, {}", s.name, a.requests_source, pools), a.runs).print_text(std::cout);
  std::cout << fmt::format("# KV cache: {} blocks of {} tokens per replica ({} tokens)\n", a.kv_blocks_per_replica,
                           a.kv_block_tokens, a.kv_blocks_per_replica * a.kv_block_tokens);
  std::cout << "# $/1M in and out: the run's GPU time, idle included, split between prefill and decode by their busy "
               "time; the two add up to the run's cost\n";
  if (c.slo_ttft_s > 0 || c.slo_tpot_s > 0)
    std::cout << fmt::format(
        "# SLOs: {}, {}; goodput counts requests meeting both\n",
        c.slo_ttft_s > 0 ? "TTFT <= " + serving::duration_text(c.slo_ttft_s) : std::string("no TTFT SLO"),
        c.slo_tpot_s > 0 ? "TPOT <= " + serving::duration_text(c.slo_tpot_s) : std::string("no TPOT SLO"));
  if (a.trace_stopped_at_s)
    std::cout << fmt::format(
        "# --trace stopped at its {:.3g} GiB limit, {:.4g} s into the run: it holds what came "
        "before\n",
        static_cast<double>(c.trace_max_bytes) / static_cast<double>(int64_t{1} << 30), *a.trace_stopped_at_s);
  if (a.search) {
    if (a.search->rate_per_s > 0)
      std::cout << fmt::format("# max rate meeting the SLOs at p99: {:.4g} requests/s ({} runs)\n",
                               a.search->rate_per_s, a.search->probes.size());
    else
      std::cout << fmt::format(
          "# max rate: no rate down to the search's floor meets the SLOs and keeps up with its arrivals ({} runs)\n",
          a.search->probes.size());
  }
  if (a.pooled_search)  // set only when the pooled search found a rate (api/src/serve.cpp)
    std::cout << fmt::format(
        "# pooled: {} replicas under one router meet the SLOs up to {:.4g} requests/s ({:.4g} "
        "per simulated pool; {} runs)\n",
        a.capacity_replicas(), a.pooled_search->rate_per_s,
        a.pooled_search->rate_per_s / static_cast<double>(a.capacity_pools), a.pooled_search->probes.size());
  if (!a.splits.empty()) api::splits_table(a).print_text(std::cout);
  if (a.capacity) {
    std::cout << (a.capacity_target == api::CapacityTarget::Requests
                      ? fmt::format("# capacity for {:.4g} requests/s (--target-rate):", a.capacity->target_per_s)
                      : fmt::format("# capacity for {:.4g} {} tokens/s (workload.target_tokens_per_second):",
                                    a.capacity->target_per_s,
                                    a.capacity_target == api::CapacityTarget::OutputTokens ? "output" : "input"));
    for (const auto& pc : a.capacity->pools)
      std::cout << fmt::format(" {} {} replicas ({} unit{} of {} GPUs),", pc.units.label, pc.replicas,
                               pc.deployment_units, pc.deployment_units == 1 ? "" : "s", pc.units.unit_gpus);
    std::cout << fmt::format(" {} GPUs, {} nodes\n", a.capacity->gpus, a.capacity->nodes);
    const int64_t simulated = a.capacity_replicas();
    std::cout << fmt::format(
        "# (copies of {} simulated replica{} under one router; a larger fleet takes a little more "
        "per replica)\n",
        simulated, simulated == 1 ? "" : "s");
  }
}
}  // namespace

void setup_serve(CLI::App& app) {
  auto options = std::make_shared<ServeOptions>();
  auto* o = &options->arguments;
  auto* cmd = add_scenario_verb(app, "serve",
                                "Simulate serving under load: TTFT/TPOT/E2E percentiles, throughput, goodput, KV use, "
                                "cost; --max-rate and the capacity for the scenario's target",
                                [options](const Scenario& s, const Output& out) { run_serve(s, out, *options); });
  cmd->add_option("--rate", o->rate,
                  "Poisson arrival rate, requests/s (> 0); with --max-rate the search's start (default 1)");
  cmd->add_option("--requests", o->requests,
                  "Poisson requests to simulate (default 1000; a --requests-file has its own)");
  cmd->add_option("--requests-file", o->requests_file, "CSV or JSONL of arrival_s, input_tokens, output_tokens")
      ->check(path_flag());
  cmd->add_option("--input-tokens", o->input_tokens,
                  "Prompt tokens per request, or their mean (default: the scenario's workload.context_len)");
  cmd->add_option("--output-tokens", o->output_tokens, "Output tokens per request, or their mean (default 256)");
  cmd->add_option("--lengths", o->lengths,
                  "Token lengths: fixed or exponential, clamped at 8 x the mean (default fixed)");
  cmd->add_option("--prefix-hit", o->prefix_hit,
                  "Share of each prompt served from the prefix cache, [0, 1) (default 0)");
  cmd->add_option("--slo-ttft", o->slo_ttft,
                  "Time-to-first-token SLO with a unit, e.g. 2s (percentiles are read from a sketch within 0.5%)");
  cmd->add_option("--slo-tpot", o->slo_tpot, "Time-per-output-token SLO with a unit, e.g. 50ms");
  cmd->add_option("--replicas", o->replicas,
                  "Replicas (tp x pp GPUs each), or the decode pool with --prefill-replicas (default 1)");
  cmd->add_option("--prefill-replicas", o->prefill_replicas,
                  "Prefill/decode disaggregation: replicas of the prefill pool (default 0 = colocated); auto: with "
                  "a target, the prefill:decode split needing the fewest nodes");
  cmd->add_option("--prefill-scenario", o->prefill_scenario,
                  "Scenario of the prefill pool, as written (default: -s with its --set)")
      ->check(path_flag());
  cmd->add_option("--router", o->router, "least-loaded or round-robin (default least-loaded)");
  cmd->add_option("--token-budget", o->token_budget, "Tokens per iteration, decodes + prefill chunks (default 2048)");
  cmd->add_option("--prefill-token-budget", o->prefill_token_budget,
                  "Tokens per iteration of the prefill pool (default 16384)");
  cmd->add_option("--max-batch", o->max_batch, "Sequences per iteration (default 0 = workload.batch_seqs)");
  cmd->add_flag("--no-chunked-prefill", options->no_chunked_prefill,
                "Admit a prompt only when it fits the budget whole");
  cmd->add_option("--seed", o->seed, "Seed of the arrivals and lengths (default 1)");
  cmd->add_option("-j,--jobs", o->jobs, "Threads of --prefill-replicas auto's split search (default 0: all cores)");
  cmd->add_flag(
      "--max-rate", o->max_rate,
      "Search the highest rate meeting the SLOs at p99, and the capacity for workload.target_tokens_per_second");
  cmd->add_option("--target-rate", o->target_rate,
                  "Load to size the service for, requests/s: replicas, GPUs and nodes meeting the SLOs (implies "
                  "--max-rate; default workload.target_tokens_per_second)");
  cmd->add_option(
         "--trace", o->trace,
         "Chrome trace of the iterations (first 16 replicas of each pool, up to 1 GiB; gzip when it ends in .gz)")
      ->check(path_flag());
  cmd->add_flag("--force", o->force, "Replace an existing --trace file mhcsim wrote");
}

}  // namespace mhcsim::cli
