#include "mhcsim/api/serve.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <iterator>
#include <memory>
#include <mutex>
#include <utility>

#include "mhcsim/api/serve_arguments.h"
#include "mhcsim/atomic_write.h"
#include "mhcsim/error.h"
#include "mhcsim/scenarios/load.h"
#include "mhcsim/threads.h"

namespace mhcsim::api {

namespace {
void check(const ServeRequest& r) {
  using namespace serve_args;
  const auto& c = r.config;
  const auto name = [&](const ArgumentName& n) { return n.in(r.names); };
  if (r.requests_file.empty() && !r.rate_per_s && !r.max_rate && !r.target_rate_per_s)
    throw InputError(name(kRate),
                     fmt::format("missing (expected {} R requests/s, or {} F)", name(kRate), name(kRequestsFile)));
  if (!r.requests_file.empty() && r.rate_per_s)
    throw InputError(name(kRate), fmt::format("a request file has its own arrivals (expected {} or {}, not both)",
                                              name(kRate), name(kRequestsFile)));
  // The run (or a search's first) must fit the simulated clock.
  if (r.rate_per_s) {
    const auto span = serving::arrival_span_problem(*r.rate_per_s, r.requests);
    if (!span.empty()) throw InputError(name(kRate), span);
  }
  const std::string search = name(r.target_rate_per_s ? kTargetRate : kMaxRate);
  const std::string poisson_only =
      fmt::format("searches Poisson rates (expected {}, not {})", name(kRate), name(kRequestsFile));
  if (!r.requests_file.empty() && (r.max_rate || r.target_rate_per_s)) throw InputError(search, poisson_only);
  if ((r.max_rate || r.target_rate_per_s || r.split_search) && c.slo_ttft_s <= 0 && c.slo_tpot_s <= 0)
    throw InputError(r.split_search ? name(kPrefillReplicas) : search,
                     fmt::format("needs an SLO to meet (expected {} and/or {})", name(kSloTtft), name(kSloTpot)));
  if (r.split_search && !r.requests_file.empty()) throw InputError(name(kPrefillReplicas), "auto " + poisson_only);
  if (!r.prefill_scenario.empty() && c.prefill_replicas == 0 && !r.split_search)
    throw InputError(name(kPrefillScenario),
                     fmt::format("describes the prefill pool (expected {} > 0 too)", name(kPrefillReplicas)));
}

// One split of the pools sized: its max-rate search and, with a target, the capacity from the
// last search that found a rate (the pooled one, when run).
struct Sizing {
  serving::MaxRate search;
  std::optional<serving::MaxRate> pooled_search;
  int64_t copies = 1;  // copies of the simulated pools the pooled search ran
  std::optional<serving::CapacityAnswer> capacity;
  // The last search that found a rate (the pooled one, when run), and its rate per copy.
  const serving::MaxRate& last_search() const { return pooled_search ? *pooled_search : search; }
  double max_rate_per_copy() const { return last_search().rate_per_s / static_cast<double>(copies); }
};

// `ratio` prefill replicas per decode replica as simulated pools: 2 x ratio prefill over 2
// decode replicas, or 2 prefill over 2 / ratio decode below 1 (two on the smaller side, so that
// the sqrt(2) steps of the split search land on distinct splits).
std::pair<int64_t, int64_t> split_pools(double ratio) {
  if (ratio >= 1) return {std::llround(2 * ratio), 2};
  return {2, std::llround(2 / ratio)};
}

// Whether split x needs fewer nodes than y (then fewer GPUs, then serves more per GPU before
// rounding to units); a split where no rate met the SLOs comes last.
bool fewer_nodes(const PoolSplit& x, const PoolSplit& y) {
  if (!x.capacity || !y.capacity) return x.capacity.has_value() && !y.capacity;
  if (x.capacity->nodes != y.capacity->nodes) return x.capacity->nodes < y.capacity->nodes;
  if (x.capacity->gpus != y.capacity->gpus) return x.capacity->gpus < y.capacity->gpus;
  return x.max_rate_per_s_per_gpu > y.max_rate_per_s_per_gpu;
}

// Sizes each of `configs` (one split each) on up to `jobs` threads (0: one per core): a split's
// runs are independent of the others' and read the deployments only. `one_done` is called, under
// a lock, as each finishes. The first error stops the others at their next split.
std::vector<Sizing> size_in_parallel(const std::vector<serving::ServingConfig>& configs,
                                     const std::function<Sizing(const serving::ServingConfig&)>& size,
                                     const std::function<void()>& one_done, int jobs, const std::string& jobs_name) {
  std::vector<Sizing> sized(configs.size());
  std::atomic<size_t> next{0};
  std::mutex lock;
  const auto work = [&](int) {
    for (size_t i = next++; i < configs.size(); i = next++) {
      sized[i] = size(configs[i]);
      const std::lock_guard<std::mutex> held(lock);
      one_done();
    }
  };
  const int threads = std::min(static_cast<int>(configs.size()), default_threads(jobs));
  run_threads(threads, work, {jobs_name, {}, [&] { next = configs.size(); }});
  return sized;
}

// The prefill:decode split needing the fewest nodes for the target: each pool's throughput per
// replica differs (prefill is compute bound, decode bandwidth bound) and so does its deployment
// unit, so the best split is found by sizing the service at each: ratios 1/8 to 32 by powers of
// two, then sqrt(2) either side of the best. Sets `config`'s pools to the best split; `splits`
// gets every split tried, by ratio.
Sizing search_splits(serving::ServingConfig& config, const std::function<Sizing(const serving::ServingConfig&)>& size,
                     const ServeRequest& r, std::vector<PoolSplit>& splits) {
  const auto& progress = r.progress;
  constexpr double kCoarse[] = {0.125, 0.25, 0.5, 1, 2, 4, 8, 16, 32};
  constexpr int64_t kSplits = std::size(kCoarse) + 2;
  std::vector<std::pair<PoolSplit, Sizing>> tried;
  int64_t done = 0;
  const auto one_done = [&] {
    if (progress) progress(++done, kSplits);
  };
  // Sizes the splits at `ratios` not tried yet.
  const auto run = [&](const std::vector<double>& ratios) {
    std::vector<serving::ServingConfig> configs;
    for (const double ratio : ratios) {
      const auto split = split_pools(ratio);
      const auto same = [&](int64_t prefill, int64_t decode) {
        return prefill == split.first && decode == split.second;
      };
      if (std::any_of(tried.begin(), tried.end(),
                      [&](const auto& t) { return same(t.first.prefill_replicas, t.first.replicas); }) ||
          std::any_of(configs.begin(), configs.end(),
                      [&](const auto& c) { return same(c.prefill_replicas, c.replicas); }))
        continue;
      auto c = config;
      c.prefill_replicas = split.first;
      c.replicas = split.second;
      configs.push_back(c);
    }
    auto sized = size_in_parallel(configs, size, one_done, r.jobs, serve_args::kJobs.in(r.names));
    for (size_t i = 0; i < configs.size(); ++i) {
      Sizing& z = sized[i];
      PoolSplit t;
      t.prefill_replicas = configs[i].prefill_replicas;
      t.replicas = configs[i].replicas;
      const auto& last = z.last_search();
      t.max_rate_per_s = z.max_rate_per_copy();
      if (last.rate_per_s > 0) t.max_rate_per_s_per_gpu = last.rate_per_s / static_cast<double>(last.at_rate.gpus);
      t.simulated_replicas = z.copies * (t.prefill_replicas + t.replicas);
      t.capacity = z.capacity;
      tried.emplace_back(std::move(t), std::move(z));
    }
  };
  const auto best = [&] {
    return std::min_element(tried.begin(), tried.end(),
                            [](const auto& x, const auto& y) { return fewer_nodes(x.first, y.first); });
  };
  run({std::begin(kCoarse), std::end(kCoarse)});
  const auto coarse = best();
  const double at = static_cast<double>(coarse->first.prefill_replicas) / static_cast<double>(coarse->first.replicas);
  run({at * std::sqrt(0.5), at * std::sqrt(2.0)});
  if (progress) progress(kSplits, kSplits);
  std::sort(tried.begin(), tried.end(), [](const auto& x, const auto& y) {
    return x.first.prefill_replicas * y.first.replicas < y.first.prefill_replicas * x.first.replicas;
  });
  auto chosen = best();
  config.prefill_replicas = chosen->first.prefill_replicas;
  config.replicas = chosen->first.replicas;
  Sizing z = std::move(chosen->second);
  for (auto& [t, unused] : tried) splits.push_back(std::move(t));
  return z;
}

const char* length_name(serving::LengthDistribution::Kind k) {
  return k == serving::LengthDistribution::Kind::Fixed ? "fixed" : "exponential";
}

nlohmann::json result_json(const serving::ServingResult& r) {
  nlohmann::json j;
  for (const auto& f : serving::stat_fields()) j[f.key] = reports::cell_json(serving::stat_cell(f, r));
  j["duration_s"] = r.duration_s;
  j["last_arrival_s"] = r.last_arrival_s;
  j["gpus"] = r.gpus;
  j["iterations"] = r.iterations;
  // Sums of whole token counts, exact in a double up to 2^53.
  j["input_tokens"] = std::llround(r.input_tokens);
  j["prefix_hit_tokens"] = std::llround(r.prefix_hit_tokens);
  j["output_tokens"] = std::llround(r.output_tokens);
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

const char* capacity_target_name(CapacityTarget target) {
  constexpr std::array<const char*, 3> kNames{"requests", "output_tokens", "input_tokens"};  // in enum order
  return kNames.at(static_cast<size_t>(target));
}

namespace {
// A prefill pool hands its KV cache to the decode pool: the same model (its name aside) with
// the same KV precision, or there is nothing the decode pool could read.
void require_same_model(const Scenario& decode, const Scenario& prefill, const std::string& option) {
  ModelSpec a = decode.model, b = prefill.model;
  a.name = b.name = "";
  if (a == b && decode.precision.kv_cache == prefill.precision.kv_cache) return;
  throw InputError(option, fmt::format("{}'s {} differs from {}'s: the decode pool could not read the KV cache the "
                                       "prefill pool hands it (expected the same [model] and precision.kv_cache)",
                                       prefill.path, a == b ? "precision.kv_cache" : "model", decode.path));
}

// serve(), its errors keyed by the CLI's flags.
ServeAnswer serve_named(const Scenario& s, const ServeRequest& r) {
  using namespace serving;
  check(r);
  if (!r.trace_path.empty())
    require_output_file(r.trace_path, r.force, serve_args::kTrace.in(r.names).c_str(),
                        kTraceWrittenBy);  // before the work
  const Deployment main(s);
  std::unique_ptr<Deployment> prefill;
  if (!r.prefill_scenario.empty()) {
    const Scenario other = scenarios::load_scenario(r.prefill_scenario);
    require_same_model(s, other, serve_args::kPrefillScenario.in(r.names));
    try {
      prefill = std::make_unique<Deployment>(other);
    } catch (const InputError& e) {  // the model's errors name a key, not which of the two files
      if (!e.where().file.empty()) throw;
      throw InputError(e.key(), e.reason(), {other.path, 0});
    }
  }
  // Poisson arrivals at `rate` on the pools of `config`.
  const LengthDistribution input{
      r.input.kind, r.input.mean_tokens > 0 ? r.input.mean_tokens : static_cast<double>(s.workload.context_len)};
  const auto simulate_pools = [&](double rate, std::ostream* trace, ServingConfig config, int64_t requests) {
    config.trace = trace;
    PoissonSource source(rate, requests, input, r.output, r.seed);
    return simulate(main, config, source, prefill.get());
  };
  // The lowest rate a search may try: `requests` arrivals within the simulated clock's range.
  const auto floor_rate = [](int64_t requests) { return static_cast<double>(requests) / kMaxArrivalSeconds; };
  ServeAnswer a;
  const auto& model = main.model();
  a.gpus_per_replica = model.gpus_per_replica();
  const auto gpus_of = [](const Deployment& d) {
    const int64_t n = d.model().gpus_per_replica();
    return fmt::format("{} GPU{} ({})", n, n > 1 ? "s" : "", d.scenario().hardware.gpu.name);
  };
  a.replica_gpus = gpus_of(main);
  a.prefill_replica_gpus = gpus_of(prefill ? *prefill : main);
  a.kv_blocks_per_replica = model.kv_blocks();
  a.kv_block_tokens = model.kv_block_tokens();
  constexpr int64_t kRequestsPerReplica = 250;  // in a search's runs: below
  const bool searching = r.max_rate || r.target_rate_per_s || r.split_search;
  a.requests_source =
      r.requests_file.empty()
          ? fmt::format(
                "Poisson, {} requests{} of {} in / {} out tokens ({})", r.requests,
                searching ? fmt::format(" (a search's runs: at least {} per replica)", kRequestsPerReplica) : "",
                input.mean_tokens, r.output.mean_tokens, length_name(input.kind))
          : r.requests_file;
  constexpr double kDefaultSearchStartPerS = 1;
  const double rate_per_s = r.rate_per_s.value_or(kDefaultSearchStartPerS);
  // The capacity answer: the target load over what the simulated pools served at the max rate,
  // in requests/s (--target-rate) or in the scenario's target tokens/s.
  const bool decode = s.workload.phase == ServePhase::Decode;
  a.capacity_target = r.target_rate_per_s ? CapacityTarget::Requests
                      : decode            ? CapacityTarget::OutputTokens
                                          : CapacityTarget::InputTokens;
  const std::string target_key =
      r.target_rate_per_s ? serve_args::kTargetRate.in(r.names) : "workload.target_tokens_per_second";
  const double target_per_s = r.target_rate_per_s.value_or(s.workload.target_tokens_per_second);

  // One split of the pools (`config`): its max-rate search and, with a target, the capacity.
  // A search's runs hold at least kRequestsPerReplica requests per replica: with fewer, a pool
  // absorbs a burst it could not sustain, and the search "meets" the SLOs at any rate (200
  // requests over 91 prefill + 2 decode replicas met p99 TTFT 2 s at 4e9 requests/s).
  const auto size_pools = [&](const ServingConfig& config) {
    Sizing z;
    const int64_t simulated = config.replicas + config.prefill_replicas;
    const int64_t first_requests = std::max(r.requests, kRequestsPerReplica * simulated);
    z.search = search_max_rate([&](double rate) { return simulate_pools(rate, nullptr, config, first_requests); },
                               config.slo_ttft_s, config.slo_tpot_s, rate_per_s, floor_rate(first_requests));
    if (z.search.rate_per_s <= 0 || target_per_s <= 0) return z;
    // The target over what `copies` of the simulated pools served at the max rate `m`.
    const auto capacity = [&](int64_t copies, const MaxRate& m) {
      const auto& at = m.at_rate;
      const double per_request =
          r.target_rate_per_s ? 1.0 : (decode ? at.output_tokens : at.input_tokens) / static_cast<double>(at.requests);
      std::vector<std::pair<PoolUnits, int64_t>> pools;
      if (config.prefill_replicas > 0)
        pools.push_back({pool_units(prefill ? prefill->scenario() : s, "prefill"), copies * config.prefill_replicas});
      pools.push_back({pool_units(s, config.prefill_replicas > 0 ? "decode" : "serving"), copies * config.replicas});
      return capacity_for(target_per_s, m.rate_per_s * per_request, pools, target_key);
    };
    z.capacity = capacity(1, z.search);
    // Copies of a few replicas overstate what a large fleet needs: one router over many replicas
    // evens out their queues, the more so the tighter the TTFT SLO is against a prompt's
    // prefill. On the shipped decode scenario at p99 TTFT 2 s with 4,989-token prompts, a
    // replica meets it up to 0.34 requests/s alone, 0.54 among 16, 1.11 among 64 and 1.17 among
    // 144. So the search is run again over the copies of the simulated pools that the answer
    // needs, under one router (at most kPooledReplicas replicas, at least kRequestsPerReplica
    // requests per replica and no fewer than asked), and again at the copies that answer needs,
    // until they agree (at most kPoolingRounds searches); the capacity comes from the last
    // search that found a rate.
    constexpr int64_t kPooledReplicas = 128, kPoolingRounds = 3;
    const int64_t max_copies = std::max<int64_t>(1, kPooledReplicas / simulated);
    for (int64_t round = 0; round < kPoolingRounds; ++round) {
      const int64_t k = std::clamp<int64_t>(
          static_cast<int64_t>(std::ceil(z.capacity->scale * static_cast<double>(z.copies) - 1e-9)), 1, max_copies);
      if (k == z.copies) break;
      auto pooled = config;
      pooled.replicas *= k;
      pooled.prefill_replicas *= k;
      const int64_t requests = std::max(r.requests, kRequestsPerReplica * k * simulated);
      auto search = search_max_rate([&](double rate) { return simulate_pools(rate, nullptr, pooled, requests); },
                                    config.slo_ttft_s, config.slo_tpot_s,
                                    z.max_rate_per_copy() * static_cast<double>(k), floor_rate(requests));
      if (search.rate_per_s <= 0) break;
      z.capacity = capacity(k, search);
      z.copies = k;
      z.pooled_search = std::move(search);
    }
    return z;
  };

  if (r.split_search && target_per_s <= 0)
    throw InputError(serve_args::kPrefillReplicas.in(r.names),
                     fmt::format("auto picks the split needing the fewest nodes for a target (expected {} R, or "
                                 "workload.target_tokens_per_second)",
                                 serve_args::kTargetRate.in(r.names)));
  ServingConfig config = r.config;
  std::optional<Sizing> sized;
  if (r.split_search) {
    sized = search_splits(config, size_pools, r, a.splits);
  } else if (r.max_rate || r.target_rate_per_s) {
    sized = size_pools(config);
  }
  a.replicas = config.replicas;
  a.prefill_replicas = config.prefill_replicas;
  if (sized) {
    a.runs = sized->search.probes;
    std::sort(a.runs.begin(), a.runs.end(), [](const auto& x, const auto& y) { return x.rate_per_s < y.rate_per_s; });
    a.search = std::move(sized->search);
    a.pooled_search = std::move(sized->pooled_search);
    a.capacity_pools = sized->copies;
    a.capacity = std::move(sized->capacity);
  }
  // One run (traced when asked): the request file's, at --rate, or at the max rate found.
  const auto one_run = [&](std::ostream* trace) {
    if (r.requests_file.empty())
      return simulate_pools(a.search && a.search->rate_per_s > 0 ? a.search->rate_per_s : rate_per_s, trace, config,
                            r.requests);
    config.trace = trace;
    RequestFile source(r.requests_file);
    return simulate(main, config, source, prefill.get());
  };
  if (!r.trace_path.empty()) {
    ServingResult traced;
    write_file_atomically_gzip_by_name(r.trace_path, [&](std::ostream& out) { traced = one_run(&out); });
    a.trace_stopped_at_s = traced.trace_stopped_at_s;
    if (!a.search) a.runs.push_back(traced);
  } else if (!a.search) {
    a.runs.push_back(one_run(nullptr));
  }
  return a;
}
}  // namespace

ServeAnswer serve(const Scenario& s, const ServeRequest& r) {
  return with_named_errors(r.names, serve_args::kAll, [&] { return serve_named(s, r); });
}

nlohmann::json to_json(const Scenario& s, const ServeRequest& request, const ServeAnswer& a) {
  const auto& c = request.config;
  nlohmann::json doc;
  doc["scenario"] = s.name;
  doc["requests_source"] = a.requests_source;
  doc["replicas"] = a.replicas;
  doc["prefill_replicas"] = a.prefill_replicas;
  doc["gpus_per_replica"] = a.gpus_per_replica;
  doc["kv_blocks_per_replica"] = a.kv_blocks_per_replica;
  doc["kv_block_tokens"] = a.kv_block_tokens;
  // null without that SLO, as inputs has it
  doc["slo_ttft_s"] = c.slo_ttft_s > 0 ? nlohmann::json(c.slo_ttft_s) : nlohmann::json();
  doc["slo_tpot_s"] = c.slo_tpot_s > 0 ? nlohmann::json(c.slo_tpot_s) : nlohmann::json();
  doc["runs"] = nlohmann::json::array();
  for (const auto& r : a.runs) doc["runs"].push_back(result_json(r));
  if (!request.trace_path.empty())
    doc["trace_stopped_at_s"] = a.trace_stopped_at_s ? nlohmann::json(*a.trace_stopped_at_s) : nlohmann::json();
  if (a.search) {
    doc["max_rate_per_s"] = a.search->rate_per_s > 0 ? nlohmann::json(a.search->rate_per_s) : nlohmann::json();
    if (a.search->rate_per_s > 0) doc["at_max_rate"] = result_json(a.search->at_rate);
  }
  if (a.capacity) {
    auto& cap = doc["capacity"];
    cap["target"] = capacity_target_name(a.capacity_target);  // the unit of the two rates below, per second
    cap["target_per_s"] = a.capacity->target_per_s;
    cap["served_per_s_at_max_rate"] = a.capacity->simulated_per_s;
    cap["simulated_replicas"] = a.capacity_replicas();
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
    if (!a.splits.empty()) cap["splits"] = splits_table(a).to_json();
  }
  return doc;
}

reports::Table splits_table(const ServeAnswer& a) {
  reports::Table t("prefill:decode splits sized for the target (the fewest nodes is chosen)",
                   {{"prefill_replicas", "prefill"},
                    {"replicas", "decode"},
                    {"prefill_per_decode", "prefill/decode", 3},
                    {"max_rate_per_s", "max rate (req/s per pool)", 3},
                    {"max_rate_per_s_per_gpu", "max rate (req/s/GPU)", 3},
                    {"simulated_replicas", "simulated replicas"},
                    {"prefill_gpus", "prefill GPUs"},
                    {"decode_gpus", "decode GPUs"},
                    {"gpus", "GPUs"},
                    {"nodes", "nodes"},
                    {"chosen", "chosen"}});
  for (const auto& p : a.splits) {
    const auto gpus = [&](size_t pool) -> reports::Cell {
      if (!p.capacity) return {};
      return p.capacity->pools[pool].gpus;
    };
    const bool chosen = p.prefill_replicas == a.prefill_replicas && p.replicas == a.replicas;
    t.add_row({p.prefill_replicas, p.replicas,
               static_cast<double>(p.prefill_replicas) / static_cast<double>(p.replicas), p.max_rate_per_s,
               p.max_rate_per_s_per_gpu, p.simulated_replicas, gpus(0), gpus(1),
               p.capacity ? reports::Cell{p.capacity->gpus} : reports::Cell{},
               p.capacity ? reports::Cell{p.capacity->nodes} : reports::Cell{}, chosen});
  }
  return t;
}

}  // namespace mhcsim::api
