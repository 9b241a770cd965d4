#include "mhcsim/api/serve.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <utility>

#include "mhcsim/atomic_write.h"
#include "mhcsim/error.h"
#include "mhcsim/scenarios/load.h"

namespace mhcsim::api {

namespace {
void check(const ServeRequest& r) {
  const auto& c = r.config;
  if (r.requests_file.empty() && !r.rate_per_s && !r.max_rate && !r.target_rate_per_s)
    throw InputError("--rate", "missing (expected --rate R requests/s, or --requests-file F)");
  if (!r.requests_file.empty() && r.rate_per_s)
    throw InputError("--rate", "a request file has its own arrivals (expected --rate or --requests-file, not both)");
  const char* search_flag = r.target_rate_per_s ? "--target-rate" : "--max-rate";
  if (!r.requests_file.empty() && (r.max_rate || r.target_rate_per_s))
    throw InputError(search_flag, "searches Poisson rates (expected --rate, not --requests-file)");
  if ((r.max_rate || r.target_rate_per_s) && c.slo_ttft_s <= 0 && c.slo_tpot_s <= 0)
    throw InputError(search_flag, "needs an SLO to meet (expected --slo-ttft and/or --slo-tpot)");
  if (!r.prefill_scenario.empty() && c.prefill_replicas == 0)
    throw InputError("--prefill-scenario", "describes the prefill pool (expected --prefill-replicas > 0 too)");
}

const char* length_name(serving::LengthDistribution::Kind k) {
  return k == serving::LengthDistribution::Kind::Fixed ? "fixed" : "exponential";
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
  for (const auto& k : r.kv_utilisation_series)
    series.push_back({{"time_s", k.time_s}, {"utilisation", k.utilisation}});
  return j;
}
}  // namespace

ServeAnswer serve(const Scenario& s, const ServeRequest& r) {
  using namespace serving;
  check(r);
  const Deployment main(s);
  std::unique_ptr<Deployment> prefill;
  if (!r.prefill_scenario.empty()) prefill = std::make_unique<Deployment>(scenarios::load_scenario(r.prefill_scenario));
  // Poisson arrivals at `rate` on the pools of `config`.
  const LengthDistribution input{
      r.input.kind, r.input.mean_tokens > 0 ? r.input.mean_tokens : static_cast<double>(s.workload.context_len)};
  const auto simulate_pools = [&](double rate, std::ostream* trace, ServingConfig config, int64_t requests) {
    config.trace = trace;
    PoissonSource source(rate, requests, input, r.output, r.seed);
    return simulate(main, config, source, prefill.get());
  };
  const auto simulate_at = [&](double rate, std::ostream* trace) {
    return simulate_pools(rate, trace, r.config, r.requests);
  };
  const auto simulate_file = [&](std::ostream* trace) {
    auto config = r.config;
    config.trace = trace;
    RequestFile source(r.requests_file);
    return simulate(main, config, source, prefill.get());
  };
  ServeAnswer a;
  const auto& model = main.model();
  a.gpus_per_replica = model.gpus_per_replica();
  a.kv_blocks_per_replica = model.kv_blocks();
  a.kv_block_tokens = model.kv_block_tokens();
  a.requests_source = r.requests_file.empty()
                          ? fmt::format("Poisson, {} requests of {} in / {} out tokens ({})", r.requests,
                                        input.mean_tokens, r.output.mean_tokens, length_name(input.kind))
                          : r.requests_file;
  // One run (traced when asked), or the max-rate search and its runs.
  constexpr double kDefaultSearchStartPerS = 1;
  const double rate_per_s = r.rate_per_s.value_or(kDefaultSearchStartPerS);
  if (r.max_rate || r.target_rate_per_s) {
    a.search = search_max_rate([&](double rate) { return simulate_at(rate, nullptr); }, r.config.slo_ttft_s,
                               r.config.slo_tpot_s, rate_per_s);
    a.runs = a.search->probes;
    std::sort(a.runs.begin(), a.runs.end(), [](const auto& x, const auto& y) { return x.rate_per_s < y.rate_per_s; });
  }
  const auto one_run = [&](std::ostream* trace) {
    if (!r.requests_file.empty()) return simulate_file(trace);
    return simulate_at(a.search && a.search->rate_per_s > 0 ? a.search->rate_per_s : rate_per_s, trace);
  };
  if (!r.trace_path.empty()) {
    ServingResult traced;
    write_file_atomically(r.trace_path, [&](std::ostream& out) { traced = one_run(&out); });
    if (!a.search) a.runs.push_back(traced);
  } else if (!a.search) {
    a.runs.push_back(one_run(nullptr));
  }
  // The capacity answer: the target load over what the simulated pools served at the max rate,
  // in requests/s (--target-rate) or in the scenario's target tokens/s.
  const auto& c = r.config;
  const bool decode = s.workload.phase == ServePhase::Decode;
  a.capacity_target = r.target_rate_per_s ? "requests" : decode ? "output_tokens" : "input_tokens";
  const double target_per_s = r.target_rate_per_s.value_or(s.workload.target_tokens_per_second);
  if (a.search && a.search->rate_per_s > 0 && target_per_s > 0) {
    // The target over what `copies` of the simulated pools served at the max rate `m`.
    const auto capacity = [&](int64_t copies, const MaxRate& m) {
      const auto& at = m.at_rate;
      const double per_request =
          r.target_rate_per_s ? 1.0 : (decode ? at.output_tokens : at.input_tokens) / static_cast<double>(at.requests);
      std::vector<std::pair<PoolUnits, int64_t>> simulated;
      if (c.prefill_replicas > 0)
        simulated.push_back({pool_units(prefill ? prefill->scenario() : s, "prefill"), copies * c.prefill_replicas});
      simulated.push_back({pool_units(s, c.prefill_replicas > 0 ? "decode" : "serving"), copies * c.replicas});
      return capacity_for(target_per_s, m.rate_per_s * per_request, simulated, s.hardware.gpus_per_node);
    };
    a.capacity = capacity(1, *a.search);
    a.capacity_pools = 1;
    // Copies of a few replicas overstate what a large fleet needs: one router over many replicas
    // evens out their queues, the more so the tighter the TTFT SLO is against a prompt's
    // prefill. On the shipped decode scenario at p99 TTFT 2 s with 4,989-token prompts, a
    // replica meets it up to 0.34 requests/s alone, 0.54 among 16, 1.11 among 64 and 1.17 among
    // 144. So the search is run again over the copies of the simulated pools that the answer
    // needs, under one router (at most kPooledReplicas replicas, at least
    // kPooledRequestsPerReplica requests per replica and no fewer than asked), and again at the
    // copies that answer needs, until they agree (at most kPoolingRounds searches); the
    // capacity comes from the last search that found a rate.
    constexpr int64_t kPooledReplicas = 128, kPooledRequestsPerReplica = 250, kPoolingRounds = 3;
    const int64_t simulated = c.replicas + c.prefill_replicas;
    const int64_t max_copies = std::max<int64_t>(1, kPooledReplicas / simulated);
    for (int64_t round = 0; round < kPoolingRounds; ++round) {
      const int64_t k = std::clamp<int64_t>(
          static_cast<int64_t>(std::ceil(a.capacity->scale * static_cast<double>(a.capacity_pools) - 1e-9)), 1,
          max_copies);
      if (k == a.capacity_pools) break;
      auto config = c;
      config.replicas *= k;
      config.prefill_replicas *= k;
      const int64_t requests = std::max(r.requests, kPooledRequestsPerReplica * k * simulated);
      const double previous_per_copy = (a.pooled_search ? a.pooled_search->rate_per_s : a.search->rate_per_s) /
                                       static_cast<double>(a.capacity_pools);
      auto search = search_max_rate([&](double rate) { return simulate_pools(rate, nullptr, config, requests); },
                                    c.slo_ttft_s, c.slo_tpot_s, previous_per_copy * static_cast<double>(k));
      if (search.rate_per_s <= 0) break;
      a.capacity = capacity(k, search);
      a.capacity_pools = k;
      a.pooled_search = std::move(search);
    }
  }
  return a;
}

nlohmann::json to_json(const Scenario& s, const ServeRequest& request, const ServeAnswer& a) {
  const auto& c = request.config;
  nlohmann::json doc;
  doc["scenario"] = s.name;
  doc["requests_source"] = a.requests_source;
  doc["replicas"] = c.replicas;
  doc["prefill_replicas"] = c.prefill_replicas;
  doc["gpus_per_replica"] = a.gpus_per_replica;
  doc["kv_blocks_per_replica"] = a.kv_blocks_per_replica;
  doc["kv_block_tokens"] = a.kv_block_tokens;
  doc["slo_ttft_s"] = c.slo_ttft_s;
  doc["slo_tpot_s"] = c.slo_tpot_s;
  doc["runs"] = nlohmann::json::array();
  for (const auto& r : a.runs) doc["runs"].push_back(result_json(r));
  if (a.search) {
    doc["max_rate_per_s"] = a.search->rate_per_s;
    if (a.search->rate_per_s > 0) doc["at_max_rate"] = result_json(a.search->at_rate);
  }
  if (a.capacity) {
    auto& cap = doc["capacity"];
    cap["target"] = a.capacity_target;  // the unit of the two rates below, per second
    cap["target_per_s"] = a.capacity->target_per_s;
    cap["served_per_s_at_max_rate"] = a.capacity->simulated_per_s;
    cap["simulated_replicas"] = a.capacity_replicas(c);
    cap["pooled_max_rate_per_s"] = a.pooled_search ? nlohmann::json(a.pooled_search->rate_per_s) : nlohmann::json();
    cap["gpus"] = a.capacity->gpus;
    cap["nodes"] = a.capacity->nodes;
    cap["pools"] = nlohmann::json::array();
    for (const auto& pc : a.capacity->pools)
      cap["pools"].push_back({{"pool", pc.units.label},
                              {"replicas", pc.replicas},
                              {"deployment_units", pc.deployment_units},
                              {"unit_gpus", pc.units.unit_gpus},
                              {"gpus", pc.gpus}});
  }
  return doc;
}

}  // namespace mhcsim::api
