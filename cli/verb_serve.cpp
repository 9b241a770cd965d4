// `mhcsim serve`: the request-level serving simulator (serving/) on the scenario: TTFT, TPOT
// and E2E percentiles, throughput per GPU and node, goodput under SLOs, KV use and cost; with
// --max-rate the highest Poisson rate that meets the SLOs at p99, and the replicas, GPUs and
// nodes the scenario's target load needs. Table (one row per simulated rate) or --json.
#include <fmt/format.h>

#include <memory>
#include <optional>

#include "common.h"
#include "mhcsim/atomic_write.h"
#include "mhcsim/error.h"
#include "mhcsim/serving/capacity.h"
#include "mhcsim/serving/simulate.h"
#include "mhcsim/serving/units.h"
#include "verbs.h"

namespace mhcsim::cli {

namespace {
// Flags are read as text and parsed here, so every bad value is one line naming its flag.
struct ServeOptions {
  std::string rate, requests = "1000", requests_file;
  std::string input_tokens = "1024", output_tokens = "256", lengths = "fixed";
  std::string prefix_hit = "0";
  std::string slo_ttft, slo_tpot;
  std::string replicas = "1", prefill_replicas = "0", prefill_scenario;
  std::string router = "least-loaded";
  std::string token_budget = "2048", prefill_token_budget = "16384", max_batch = "0";
  bool no_chunked_prefill = false;
  std::string seed = "1";
  bool max_rate = false;
  std::string trace;
};

struct Parsed {
  std::optional<double> rate_per_s;
  int64_t requests = 0;
  serving::LengthDistribution input, output;
  uint64_t seed = 1;
  serving::ServingConfig config;
};

serving::LengthDistribution::Kind length_kind(const std::string& s) {
  if (s == "fixed") return serving::LengthDistribution::Kind::Fixed;
  if (s == "exponential") return serving::LengthDistribution::Kind::Exponential;
  throw InputError("--lengths", fmt::format("'{}' (expected fixed or exponential)", s));
}

Parsed parse(const ServeOptions& o) {
  using namespace serving;
  Parsed p;
  if (!o.rate.empty()) p.rate_per_s = parse_positive(o.rate, "--rate");
  if (o.requests_file.empty() && !p.rate_per_s) throw InputError("--rate", "missing (expected --rate R requests/s, or --requests-file F)");
  if (!o.requests_file.empty() && p.rate_per_s) throw InputError("--rate", "a request file has its own arrivals (expected --rate or --requests-file, not both)");
  if (!o.requests_file.empty() && o.max_rate) throw InputError("--max-rate", "searches Poisson rates (expected --rate, not --requests-file)");
  p.requests = parse_count(o.requests, "--requests");
  const auto kind = length_kind(o.lengths);
  p.input = {kind, static_cast<double>(parse_count(o.input_tokens, "--input-tokens"))};
  p.output = {kind, static_cast<double>(parse_count(o.output_tokens, "--output-tokens"))};
  p.seed = static_cast<uint64_t>(parse_count(o.seed, "--seed", 0));
  auto& c = p.config;
  c.replicas = parse_count(o.replicas, "--replicas");
  c.prefill_replicas = parse_count(o.prefill_replicas, "--prefill-replicas", 0);
  if (o.router == "least-loaded") c.router = RouterKind::LeastLoaded;
  else if (o.router == "round-robin") c.router = RouterKind::RoundRobin;
  else throw InputError("--router", fmt::format("'{}' (expected least-loaded or round-robin)", o.router));
  c.scheduler.token_budget = parse_count(o.token_budget, "--token-budget");
  c.scheduler.max_batch_seqs = parse_count(o.max_batch, "--max-batch", 0);
  c.scheduler.chunked_prefill = !o.no_chunked_prefill;
  c.prefill_scheduler = c.scheduler;
  c.prefill_scheduler.token_budget = parse_count(o.prefill_token_budget, "--prefill-token-budget");
  c.prefix_hit_ratio = parse_fraction(o.prefix_hit, "--prefix-hit");
  if (!o.slo_ttft.empty()) c.slo_ttft_s = parse_duration(o.slo_ttft, "--slo-ttft");
  if (!o.slo_tpot.empty()) c.slo_tpot_s = parse_duration(o.slo_tpot, "--slo-tpot");
  if (o.max_rate && c.slo_ttft_s <= 0 && c.slo_tpot_s <= 0)
    throw InputError("--max-rate", "needs an SLO to meet (expected --slo-ttft and/or --slo-tpot)");
  if (!o.prefill_scenario.empty() && c.prefill_replicas == 0)
    throw InputError("--prefill-scenario", "describes the prefill pool (expected --prefill-replicas > 0 too)");
  return p;
}

reports::Table runs_table(const std::string& title, const std::vector<serving::ServingResult>& runs) {
  std::vector<reports::Column> columns;
  for (const auto& f : serving::stat_fields()) columns.push_back({f.key, f.header, f.precision, f.text_scale});
  reports::Table t(title, columns);
  for (const auto& r : runs) {
    std::vector<reports::Cell> row;
    for (const auto& f : serving::stat_fields()) row.emplace_back(f.get(r));
    t.add_row(std::move(row));
  }
  return t;
}

nlohmann::json result_json(const serving::ServingResult& r) {
  nlohmann::json j;
  for (const auto& f : serving::stat_fields()) j[f.key] = f.get(r);
  j["arrival_rate_per_s"] = r.arrival_rate_per_s;
  j["duration_s"] = r.duration_s;
  j["gpus"] = r.gpus;
  j["iterations"] = r.iterations;
  j["input_tokens"] = r.input_tokens;
  j["prefix_hit_tokens"] = r.prefix_hit_tokens;
  j["output_tokens"] = r.output_tokens;
  j["ttft_mean_s"] = r.ttft.mean_s;
  j["tpot_mean_s"] = r.tpot.mean_s;
  j["e2e_mean_s"] = r.e2e.mean_s;
  j["mean_requests_in_system"] = r.mean_requests_in_system;
  j["max_requests_in_flight"] = r.max_requests_in_flight;
  j["cost_usd"] = r.cost_usd;
  auto& series = j["kv_utilisation_series"] = nlohmann::json::array();
  for (const auto& k : r.kv_utilisation_series) series.push_back({{"time_s", k.time_s}, {"utilisation", k.utilisation}});
  return j;
}

void run_serve(const Scenario& s, bool json, const ServeOptions& o) {
  using namespace serving;
  auto p = parse(o);
  const Deployment main(s);
  std::unique_ptr<Deployment> prefill;
  if (!o.prefill_scenario.empty()) prefill = std::make_unique<Deployment>(scenarios::load_scenario(o.prefill_scenario));
  const auto simulate_at = [&](double rate, std::ostream* trace) {
    auto config = p.config;
    config.trace = trace;
    PoissonSource source(rate, p.requests, p.input, p.output, p.seed);
    return simulate(main, config, source, prefill.get());
  };
  const auto simulate_file = [&](std::ostream* trace) {
    auto config = p.config;
    config.trace = trace;
    RequestFile source(o.requests_file);
    return simulate(main, config, source, prefill.get());
  };
  // One run (traced when asked), or the max-rate search and its runs.
  std::vector<ServingResult> runs;
  std::optional<MaxRate> search;
  if (o.max_rate) {
    search = search_max_rate([&](double rate) { return simulate_at(rate, nullptr); }, p.config.slo_ttft_s,
                             p.config.slo_tpot_s, *p.rate_per_s);
    runs = search->probes;
    std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.rate_per_s < b.rate_per_s; });
  }
  const auto one_run = [&](std::ostream* trace) {
    if (!o.requests_file.empty()) return simulate_file(trace);
    return simulate_at(search && search->rate_per_s > 0 ? search->rate_per_s : *p.rate_per_s, trace);
  };
  if (!o.trace.empty()) {
    ServingResult traced;
    write_file_atomically(o.trace, [&](std::ostream& out) { traced = one_run(&out); });
    if (!search) runs.push_back(traced);
  } else if (!search) {
    runs.push_back(one_run(nullptr));
  }

  const auto& c = p.config;
  const auto& model = main.model();
  const std::string source = o.requests_file.empty()
                                 ? fmt::format("Poisson, {} requests of {} in / {} out tokens ({})", p.requests,
                                               p.input.mean_tokens, p.output.mean_tokens, o.lengths)
                                 : o.requests_file;
  const std::string pools =
      c.prefill_replicas > 0
          ? fmt::format("{} prefill + {} decode replicas", c.prefill_replicas, c.replicas)
          : fmt::format("{} replica{}", c.replicas, c.replicas > 1 ? "s" : "");
  // The capacity answer: the scenario's target load at the max rate's per-replica throughput.
  std::optional<CapacityAnswer> capacity;
  const bool decode_target = s.workload.phase == ServePhase::Decode;
  if (search && search->rate_per_s > 0 && s.workload.target_tokens_per_second > 0) {
    const auto& r = search->at_rate;
    const double per_request = (decode_target ? r.output_tokens : r.input_tokens) / static_cast<double>(r.requests);
    std::vector<std::pair<PoolUnits, int64_t>> simulated;
    if (c.prefill_replicas > 0) simulated.push_back({pool_units(prefill ? prefill->scenario() : s, "prefill"), c.prefill_replicas});
    simulated.push_back({pool_units(s, c.prefill_replicas > 0 ? "decode" : "serving"), c.replicas});
    capacity = capacity_for(s.workload.target_tokens_per_second, search->rate_per_s * per_request, simulated,
                            s.hardware.gpus_per_node);
  }

  if (json) {
    nlohmann::json doc;
    doc["scenario"] = s.name;
    doc["requests_source"] = source;
    doc["replicas"] = c.replicas;
    doc["prefill_replicas"] = c.prefill_replicas;
    doc["gpus_per_replica"] = model.gpus_per_replica();
    doc["kv_blocks_per_replica"] = model.kv_blocks();
    doc["kv_block_tokens"] = model.kv_block_tokens();
    doc["slo_ttft_s"] = c.slo_ttft_s;
    doc["slo_tpot_s"] = c.slo_tpot_s;
    doc["runs"] = nlohmann::json::array();
    for (const auto& r : runs) doc["runs"].push_back(result_json(r));
    if (search) {
      doc["max_rate_per_s"] = search->rate_per_s;
      if (search->rate_per_s > 0) doc["at_max_rate"] = result_json(search->at_rate);
    }
    if (capacity) {
      auto& cap = doc["capacity"];
      cap["target_tokens_per_s"] = capacity->target_tokens_per_s;
      cap["target_kind"] = decode_target ? "output" : "input";
      cap["tokens_per_s_at_max_rate"] = capacity->simulated_tokens_per_s;
      cap["gpus"] = capacity->gpus;
      cap["nodes"] = capacity->nodes;
      cap["pools"] = nlohmann::json::array();
      for (const auto& pc : capacity->pools)
        cap["pools"].push_back({{"pool", pc.units.label}, {"replicas", pc.replicas}, {"deployment_units", pc.deployment_units},
                                {"unit_gpus", pc.units.unit_gpus}, {"gpus", pc.gpus}});
    }
    return print_json(doc);
  }
  runs_table(fmt::format("serve {}: {}, {} x {} GPU{} ({})", s.name, source, pools, model.gpus_per_replica(),
                         model.gpus_per_replica() > 1 ? "s" : "", s.hardware.gpu.name),
             runs)
      .print_text(std::cout);
  std::cout << fmt::format("# KV cache: {} blocks of {} tokens per replica ({} tokens)\n", model.kv_blocks(),
                           model.kv_block_tokens(), model.kv_blocks() * model.kv_block_tokens());
  if (c.slo_ttft_s > 0 || c.slo_tpot_s > 0)
    std::cout << fmt::format("# SLOs: TTFT <= {} ms, TPOT <= {} ms (0 = none); goodput counts requests meeting both\n",
                             c.slo_ttft_s * 1e3, c.slo_tpot_s * 1e3);
  if (search) {
    if (search->rate_per_s > 0)
      std::cout << fmt::format("# max rate meeting the SLOs at p99: {:.4g} requests/s ({} runs)\n", search->rate_per_s,
                               search->probes.size());
    else
      std::cout << "# max rate: no rate down to the search's floor meets the SLOs\n";
  }
  if (capacity) {
    std::cout << fmt::format("# capacity for {:.4g} {} tokens/s (workload.target_tokens_per_second):", capacity->target_tokens_per_s,
                             decode_target ? "output" : "input");
    for (const auto& pc : capacity->pools)
      std::cout << fmt::format(" {} {} replicas ({} units of {} GPUs),", pc.units.label, pc.replicas, pc.deployment_units,
                               pc.units.unit_gpus);
    std::cout << fmt::format(" {} GPUs, {} nodes\n", capacity->gpus, capacity->nodes);
  }
}
}  // namespace

void setup_serve(CLI::App& app) {
  auto o = std::make_shared<ServeOptions>();
  auto* cmd = add_scenario_verb(app, "serve",
                                "Simulate serving under load: TTFT/TPOT/E2E percentiles, throughput, goodput, KV use, "
                                "cost; --max-rate and the capacity for the scenario's target",
                                [o](const Scenario& s, bool json) { run_serve(s, json, *o); });
  cmd->add_option("--rate", o->rate, "Poisson arrival rate, requests/s (> 0); with --max-rate the search's start");
  cmd->add_option("--requests", o->requests, "Requests to simulate (default 1000)");
  cmd->add_option("--requests-file", o->requests_file, "CSV or JSONL of arrival_s, input_tokens, output_tokens");
  cmd->add_option("--input-tokens", o->input_tokens, "Prompt tokens per request, or their mean (default 1024)");
  cmd->add_option("--output-tokens", o->output_tokens, "Output tokens per request, or their mean (default 256)");
  cmd->add_option("--lengths", o->lengths, "Token lengths: fixed or exponential (default fixed)");
  cmd->add_option("--prefix-hit", o->prefix_hit, "Share of each prompt served from the prefix cache, [0, 1) (default 0)");
  cmd->add_option("--slo-ttft", o->slo_ttft, "Time-to-first-token SLO with a unit, e.g. 2s");
  cmd->add_option("--slo-tpot", o->slo_tpot, "Time-per-output-token SLO with a unit, e.g. 50ms");
  cmd->add_option("--replicas", o->replicas, "Replicas (tp x pp GPUs each), or the decode pool with --prefill-replicas (default 1)");
  cmd->add_option("--prefill-replicas", o->prefill_replicas, "Prefill/decode disaggregation: replicas of the prefill pool (default 0 = colocated)");
  cmd->add_option("--prefill-scenario", o->prefill_scenario, "Scenario of the prefill pool, as written (default: -s with its --set)");
  cmd->add_option("--router", o->router, "least-loaded or round-robin (default least-loaded)");
  cmd->add_option("--token-budget", o->token_budget, "Tokens per iteration, decodes + prefill chunks (default 2048)");
  cmd->add_option("--prefill-token-budget", o->prefill_token_budget, "Tokens per iteration of the prefill pool (default 16384)");
  cmd->add_option("--max-batch", o->max_batch, "Sequences per iteration (default 0 = workload.batch_seqs)");
  cmd->add_flag("--no-chunked-prefill", o->no_chunked_prefill, "Admit a prompt only when it fits the budget whole");
  cmd->add_option("--seed", o->seed, "Seed of the arrivals and lengths (default 1)");
  cmd->add_flag("--max-rate", o->max_rate, "Search the highest rate meeting the SLOs at p99, and the capacity for workload.target_tokens_per_second");
  cmd->add_option("--trace", o->trace, "Chrome trace of the iterations (first 16 replicas of each pool)");
}

}  // namespace mhcsim::cli
