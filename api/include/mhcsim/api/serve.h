#pragma once
// `serve`: the request-level serving simulator (serving/) on the scenario: TTFT, TPOT and E2E
// percentiles, throughput per GPU and node, goodput under SLOs, KV use and cost; with
// max_rate the highest Poisson rate that meets the SLOs at p99, and the replicas, GPUs and
// nodes a target load needs (target_rate_per_s, else the scenario's target tokens/s).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mhcsim/api/argument_names.h"
#include "mhcsim/reports/table.h"
#include "mhcsim/serving/capacity.h"
#include "mhcsim/serving/config.h"
#include "mhcsim/serving/request.h"
#include "mhcsim/serving/simulate.h"
#include "mhcsim/specs.h"

namespace mhcsim::api {

// What `serve` is asked: Poisson arrivals at rate_per_s, or the arrivals of requests_file.
struct ServeRequest {
  std::optional<double> rate_per_s;  // with max_rate: the search's start (default 1 request/s)
  std::string requests_file;         // CSV or JSONL of arrival_s, input_tokens, output_tokens
  int64_t requests = 1000;           // Poisson requests
  // Prompt lengths; a mean of 0 takes the scenario's workload.context_len (the prompt of a
  // prefill scenario, the KV length a decode scenario's sequences decode at).
  serving::LengthDistribution input{serving::LengthDistribution::Kind::Fixed, 0};
  serving::LengthDistribution output{serving::LengthDistribution::Kind::Fixed, 256};
  uint64_t seed = 1;
  serving::ServingConfig config;  // its `trace` stream is set by serve() from trace_path
  std::string prefill_scenario;   // the prefill pool's scenario file (default: the scenario)
  // Disaggregated, the prefill:decode split that needs the fewest nodes for the target
  // (`--prefill-replicas auto`); config.replicas and prefill_replicas are then ignored.
  bool split_search = false;
  std::function<void(int64_t done, int64_t total)> progress;  // the split search, once per split
  int jobs = 0;                                               // the split search's threads (0: one per core)
  bool max_rate = false;                                      // search the highest rate meeting the SLOs at p99
  // The load to size the service for, requests/s (implies max_rate); without it the
  // scenario's workload.target_tokens_per_second.
  std::optional<double> target_rate_per_s;
  std::string trace_path;  // Chrome trace of the iterations of one run
  bool force = false;      // replace an existing trace, if mhcsim wrote it
  ArgumentNames names = ArgumentNames::Flags;
};

// One prefill:decode split the split search sized the service with.
struct PoolSplit {
  int64_t prefill_replicas = 0, replicas = 0;  // the simulated pools
  double max_rate_per_s = 0;                   // of those pools (the pooled search's, per copy)
  double max_rate_per_s_per_gpu = 0;           // the same over the pools' GPUs
  int64_t simulated_replicas = 0;              // of the search the capacity comes from
  std::optional<serving::CapacityAnswer> capacity;
};

// What a capacity target counts: requests/s (--target-rate), or the scenario's
// workload.target_tokens_per_second as output tokens (a decode scenario) or input tokens (a
// prefill scenario).
enum class CapacityTarget { Requests, OutputTokens, InputTokens };
// "requests", "output_tokens", "input_tokens": the JSON's capacity.target.
const char* capacity_target_name(CapacityTarget target);

struct ServeAnswer {
  std::string requests_source;  // "Poisson, N requests of ..." or the request file
  int64_t gpus_per_replica = 0;
  // A replica's GPUs, as "N GPUs (GPU name)" (N = tp x pp): the decode pool's (or the only
  // pool's), and the prefill pool's, which --prefill-scenario may put on other GPUs.
  std::string replica_gpus, prefill_replica_gpus;
  int64_t kv_blocks_per_replica = 0;
  int64_t kv_block_tokens = 0;
  std::vector<serving::ServingResult> runs;  // one run, or the search's probes by rate
  std::optional<serving::MaxRate> search;
  std::optional<serving::CapacityAnswer> capacity;  // the target load at the max rate
  // The last search over capacity_pools copies of the simulated pools under one router that
  // found a rate, run when the target needs more replicas than were simulated (serve.cpp: up
  // to 128 replicas); the capacity comes from it.
  std::optional<serving::MaxRate> pooled_search;
  int64_t capacity_pools = 1;
  // The pools the runs simulate: the request's, or the split the split search chose.
  int64_t replicas = 1, prefill_replicas = 0;
  // The replicas of the search the capacity comes from: capacity_pools copies of the pools.
  int64_t capacity_replicas() const { return capacity_pools * (replicas + prefill_replicas); }
  std::vector<PoolSplit> splits;  // the split search's, by prefill:decode ratio
  CapacityTarget capacity_target = CapacityTarget::Requests;
  // --trace: where its size limit stopped it (simulated s; serving::ServingConfig::trace_max_bytes).
  std::optional<double> trace_stopped_at_s;
};

// Throws InputError (naming the argument as request.names says) for an inconsistent request.
ServeAnswer serve(const Scenario& s, const ServeRequest& request);

nlohmann::json to_json(const Scenario& s, const ServeRequest& request, const ServeAnswer& answer);

// The split search's splits, for the text table and the JSON.
reports::Table splits_table(const ServeAnswer& answer);

}  // namespace mhcsim::api
