#pragma once
// Capacity questions over the serving simulator: the highest arrival rate that meets the SLOs
// at p99 (vidur's capacity search, config_explorer/capacity_search.py: a binary search over
// the rate), and the replicas, GPUs and nodes a target load needs, in whole deployment units.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "mhcsim/serving/result.h"
#include "mhcsim/specs.h"

namespace mhcsim::serving {

// p99 TTFT <= slo_ttft_s and p99 TPOT <= slo_tpot_s (an SLO <= 0 is not checked).
bool meets_slos(const ServingResult& r, double slo_ttft_s, double slo_tpot_s);

// A finite run at a rate past capacity can meet a loose SLO all the same: its queue only grows
// for as long as the requests keep arriving, so with N requests the p99 levels off however high
// the rate (1,000 requests met p99 TTFT 15 min at 4e9 requests/s on the shipped decode
// scenario, whose replica serves ~1.2). A p99 measured over a run not much longer than itself is
// no steady state's: a rate counts as served only where the arrivals span at least this many
// p99 TTFTs. A stable queue's TTFT stays put as runs grow; past capacity it grows with the run,
// to (1 - capacity / rate) x the span, so the test refuses rates over ~1.05x capacity whatever
// the run's length, and any rate whose queueing delay is a sizable share of the run.
inline constexpr double kRunOverTtft = 20;
bool keeps_up(const ServingResult& r);

struct MaxRate {
  double rate_per_s = 0;              // highest rate found that meets the SLOs and keeps up (0 = none)
  ServingResult at_rate;              // the run at that rate
  std::vector<ServingResult> probes;  // every run, in the order made
};
// Doubles the rate from `start_rate_per_s` until a run misses the SLOs or falls behind (keeps_up) (or halves it until
// one meets them, not below `min_rate_per_s` nor 2^43 below the start), then bisects until the bracket is within
// `relative_tolerance`. `run` simulates one rate; the same seed at every rate keeps the search monotone in practice
// (common random numbers). InputError when no SLO is given.
MaxRate search_max_rate(const std::function<ServingResult(double rate_per_s)>& run, double slo_ttft_s,
                        double slo_tpot_s, double start_rate_per_s, double min_rate_per_s = 0,
                        double relative_tolerance = 0.02);

// A pool as deployed: the scenario's replica (tp x pp GPUs) within its deployment unit, the EP
// group (whose replicas meet in every MoE layer's all-to-all) or the replica, in whole nodes.
struct PoolUnits {
  std::string label;
  int64_t gpus_per_replica = 1;
  int64_t unit_gpus = 1;
  int64_t replicas_per_unit = 1;
  int gpus_per_node = 1;  // the pool's servers (hardware.gpus_per_node of its scenario)
};
PoolUnits pool_units(const Scenario& s, std::string label);

struct PoolCapacity {
  PoolUnits units;
  int64_t replicas = 0;  // rounded up to whole units
  int64_t deployment_units = 0;
  int64_t gpus = 0;
};
// The target and what the simulated pools served are in one unit, the caller's: tokens/s
// (workload.target_tokens_per_second) or requests/s (`serve --target-rate`).
struct CapacityAnswer {
  double target_per_s = 0;
  double simulated_per_s = 0;  // what the simulated pools served at the max rate
  double scale = 0;            // target / simulated: copies of the simulated pools
  std::vector<PoolCapacity> pools;
  int64_t gpus = 0;
  int64_t nodes = 0;  // each pool in whole servers of its own
};
// Replicas a capacity answer may hold per pool: far past any fleet, and far from int64's end.
constexpr int64_t kMaxCapacityReplicas = int64_t{1} << 40;
// Each pool's simulated replicas x scale, rounded up to whole deployment units (at least one).
// InputError on `target_key` (--target-rate, workload.target_tokens_per_second) when a pool
// would need more than kMaxCapacityReplicas.
CapacityAnswer capacity_for(double target_per_s, double simulated_per_s,
                            const std::vector<std::pair<PoolUnits, int64_t>>& simulated_pools,
                            const std::string& target_key);

}  // namespace mhcsim::serving
