// `mhcsim serve`: the request-level serving simulator (serving/) on the scenario: TTFT, TPOT
// and E2E percentiles, throughput per GPU and node, goodput under SLOs, KV use and cost; with
// --max-rate the highest Poisson rate that meets the SLOs at p99, and the replicas, GPUs and
// nodes the scenario's target load needs. Table (one row per simulated rate) or --json.
#include <fmt/format.h>

#include <memory>

#include "common.h"
#include "mhcsim/api/serve.h"
#include "mhcsim/error.h"
#include "mhcsim/serving/units.h"
#include "mhcsim/sweep/progress.h"
#include "verbs.h"

namespace mhcsim::cli {

namespace {
// Flags are read as text and parsed here, so every bad value is one line naming its flag.
struct ServeOptions {
  std::string rate, requests = "1000", requests_file;
  std::string input_tokens, output_tokens = "256", lengths = "fixed";
  std::string prefix_hit = "0";
  std::string slo_ttft, slo_tpot;
  std::string replicas = "1", prefill_replicas = "0", prefill_scenario;
  std::string router = "least-loaded";
  std::string token_budget = "2048", prefill_token_budget = "16384", max_batch = "0";
  bool no_chunked_prefill = false;
  std::string seed = "1";
  bool max_rate = false;
  std::string target_rate;
  std::string trace;
  bool force = false;
};

serving::LengthDistribution::Kind length_kind(const std::string& s) {
  if (s == "fixed") return serving::LengthDistribution::Kind::Fixed;
  if (s == "exponential") return serving::LengthDistribution::Kind::Exponential;
  throw InputError("--lengths", fmt::format("'{}' (expected fixed or exponential)", s));
}

api::ServeRequest parse(const ServeOptions& o) {
  using namespace serving;
  api::ServeRequest p;
  if (!o.rate.empty()) p.rate_per_s = parse_positive(o.rate, "--rate");
  p.requests = parse_count(o.requests, "--requests", 1, kMaxRequests);
  const auto kind = length_kind(o.lengths);
  p.input = {kind, o.input_tokens.empty() ? 0.0 : static_cast<double>(parse_count(o.input_tokens, "--input-tokens"))};
  p.output = {kind, static_cast<double>(parse_count(o.output_tokens, "--output-tokens"))};
  p.seed = static_cast<uint64_t>(parse_count(o.seed, "--seed", 0));
  auto& c = p.config;
  c.replicas = parse_count(o.replicas, "--replicas", 1, kMaxReplicas);
  p.split_search = o.prefill_replicas == "auto";
  if (!p.split_search) c.prefill_replicas = parse_count(o.prefill_replicas, "--prefill-replicas", 0, kMaxReplicas);
  if (o.router == "least-loaded")
    c.router = RouterKind::LeastLoaded;
  else if (o.router == "round-robin")
    c.router = RouterKind::RoundRobin;
  else
    throw InputError("--router", fmt::format("'{}' (expected least-loaded or round-robin)", o.router));
  c.scheduler.token_budget = parse_count(o.token_budget, "--token-budget");
  c.scheduler.max_batch_seqs = parse_count(o.max_batch, "--max-batch", 0);
  c.scheduler.chunked_prefill = !o.no_chunked_prefill;
  c.prefill_scheduler = c.scheduler;
  c.prefill_scheduler.token_budget = parse_count(o.prefill_token_budget, "--prefill-token-budget");
  c.prefix_hit_ratio = parse_fraction(o.prefix_hit, "--prefix-hit");
  if (!o.slo_ttft.empty()) c.slo_ttft_s = parse_duration(o.slo_ttft, "--slo-ttft");
  if (!o.slo_tpot.empty()) c.slo_tpot_s = parse_duration(o.slo_tpot, "--slo-tpot");
  p.requests_file = o.requests_file;
  p.prefill_scenario = o.prefill_scenario;
  p.max_rate = o.max_rate;
  if (!o.target_rate.empty()) p.target_rate_per_s = parse_positive(o.target_rate, "--target-rate");
  p.trace_path = o.trace;
  p.force = o.force;
  return p;  // api::serve checks how the options combine
}

nlohmann::json serve_inputs(const Scenario& s, const api::ServeRequest& r) {
  auto in = api::scenario_inputs(s);
  const auto& c = r.config;
  const auto or_null = [](const std::string& v) { return v.empty() ? nlohmann::json() : nlohmann::json(v); };
  in["rate_per_s"] = r.rate_per_s ? nlohmann::json(*r.rate_per_s) : nlohmann::json();
  in["requests"] = r.requests;
  in["requests_file"] = or_null(r.requests_file);
  in["max_rate"] = r.max_rate || r.target_rate_per_s.has_value();
  in["target_rate_per_s"] = r.target_rate_per_s ? nlohmann::json(*r.target_rate_per_s) : nlohmann::json();
  in["replicas"] = c.replicas;
  in["prefill_replicas"] = r.split_search ? nlohmann::json("auto") : nlohmann::json(c.prefill_replicas);
  in["slo_ttft_s"] = c.slo_ttft_s > 0 ? nlohmann::json(c.slo_ttft_s) : nlohmann::json();
  in["slo_tpot_s"] = c.slo_tpot_s > 0 ? nlohmann::json(c.slo_tpot_s) : nlohmann::json();
  in["seed"] = r.seed;
  return in;
}

void run_serve(const Scenario& s, const Output& out, const ServeOptions& o) {
  auto request = parse(o);
  if (request.split_search && sweep::progress_wanted())
    request.progress = [](int64_t done, int64_t total) { sweep::draw_progress(std::cerr, done, total, "splits"); };
  const auto a = api::serve(s, request);
  if (out.json) return out.print_document(serve_inputs(s, request), api::to_json(s, request, a));
  const auto& c = request.config;
  const std::string pools = a.prefill_replicas > 0
                                ? fmt::format("{} prefill + {} decode replicas", a.prefill_replicas, a.replicas)
                                : fmt::format("{} replica{}", a.replicas, a.replicas > 1 ? "s" : "");
  serving::runs_table(fmt::format("serve {}: {}, {} x {} GPU{} ({})", s.name, a.requests_source, pools,
                                  a.gpus_per_replica, a.gpus_per_replica > 1 ? "s" : "", s.hardware.gpu.name),
                      a.runs)
      .print_text(std::cout);
  std::cout << fmt::format("# KV cache: {} blocks of {} tokens per replica ({} tokens)\n", a.kv_blocks_per_replica,
                           a.kv_block_tokens, a.kv_blocks_per_replica * a.kv_block_tokens);
  if (c.slo_ttft_s > 0 || c.slo_tpot_s > 0)
    std::cout << fmt::format(
        "# SLOs: TTFT <= {:.4g} ms, TPOT <= {:.4g} ms (0 = none); goodput counts requests meeting both\n",
        c.slo_ttft_s * 1e3, c.slo_tpot_s * 1e3);
  if (a.search) {
    if (a.search->rate_per_s > 0)
      std::cout << fmt::format("# max rate meeting the SLOs at p99: {:.4g} requests/s ({} runs)\n",
                               a.search->rate_per_s, a.search->probes.size());
    else
      std::cout << "# max rate: no rate down to the search's floor meets the SLOs\n";
  }
  if (a.pooled_search)  // set only when the pooled search found a rate (api/src/serve.cpp)
    std::cout << fmt::format(
        "# pooled: {} replicas under one router meet the SLOs up to {:.4g} requests/s ({:.4g} "
        "per simulated pool; {} runs)\n",
        a.capacity_replicas(), a.pooled_search->rate_per_s,
        a.pooled_search->rate_per_s / static_cast<double>(a.capacity_pools), a.pooled_search->probes.size());
  if (!a.splits.empty()) api::splits_table(a).print_text(std::cout);
  if (a.capacity) {
    std::cout << (a.capacity_target == "requests"
                      ? fmt::format("# capacity for {:.4g} requests/s (--target-rate):", a.capacity->target_per_s)
                      : fmt::format("# capacity for {:.4g} {} tokens/s (workload.target_tokens_per_second):",
                                    a.capacity->target_per_s,
                                    a.capacity_target == "output_tokens" ? "output" : "input"));
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
  auto o = std::make_shared<ServeOptions>();
  auto* cmd = add_scenario_verb(app, "serve",
                                "Simulate serving under load: TTFT/TPOT/E2E percentiles, throughput, goodput, KV use, "
                                "cost; --max-rate and the capacity for the scenario's target",
                                [o](const Scenario& s, const Output& out) { run_serve(s, out, *o); });
  cmd->add_option("--rate", o->rate,
                  "Poisson arrival rate, requests/s (> 0); with --max-rate the search's start (default 1)");
  cmd->add_option("--requests", o->requests, "Requests to simulate (default 1000)");
  cmd->add_option("--requests-file", o->requests_file, "CSV or JSONL of arrival_s, input_tokens, output_tokens");
  cmd->add_option("--input-tokens", o->input_tokens,
                  "Prompt tokens per request, or their mean (default: the scenario's workload.context_len)");
  cmd->add_option("--output-tokens", o->output_tokens, "Output tokens per request, or their mean (default 256)");
  cmd->add_option("--lengths", o->lengths, "Token lengths: fixed or exponential (default fixed)");
  cmd->add_option("--prefix-hit", o->prefix_hit,
                  "Share of each prompt served from the prefix cache, [0, 1) (default 0)");
  cmd->add_option("--slo-ttft", o->slo_ttft, "Time-to-first-token SLO with a unit, e.g. 2s");
  cmd->add_option("--slo-tpot", o->slo_tpot, "Time-per-output-token SLO with a unit, e.g. 50ms");
  cmd->add_option("--replicas", o->replicas,
                  "Replicas (tp x pp GPUs each), or the decode pool with --prefill-replicas (default 1)");
  cmd->add_option("--prefill-replicas", o->prefill_replicas,
                  "Prefill/decode disaggregation: replicas of the prefill pool (default 0 = colocated); auto: with "
                  "a target, the prefill:decode split needing the fewest nodes");
  cmd->add_option("--prefill-scenario", o->prefill_scenario,
                  "Scenario of the prefill pool, as written (default: -s with its --set)");
  cmd->add_option("--router", o->router, "least-loaded or round-robin (default least-loaded)");
  cmd->add_option("--token-budget", o->token_budget, "Tokens per iteration, decodes + prefill chunks (default 2048)");
  cmd->add_option("--prefill-token-budget", o->prefill_token_budget,
                  "Tokens per iteration of the prefill pool (default 16384)");
  cmd->add_option("--max-batch", o->max_batch, "Sequences per iteration (default 0 = workload.batch_seqs)");
  cmd->add_flag("--no-chunked-prefill", o->no_chunked_prefill, "Admit a prompt only when it fits the budget whole");
  cmd->add_option("--seed", o->seed, "Seed of the arrivals and lengths (default 1)");
  cmd->add_flag(
      "--max-rate", o->max_rate,
      "Search the highest rate meeting the SLOs at p99, and the capacity for workload.target_tokens_per_second");
  cmd->add_option("--target-rate", o->target_rate,
                  "Load to size the service for, requests/s: replicas, GPUs and nodes meeting the SLOs (implies "
                  "--max-rate; default workload.target_tokens_per_second)");
  cmd->add_option("--trace", o->trace, "Chrome trace of the iterations (first 16 replicas of each pool)");
  cmd->add_flag("--force", o->force, "Replace an existing --trace file mhcsim wrote");
}

}  // namespace mhcsim::cli
