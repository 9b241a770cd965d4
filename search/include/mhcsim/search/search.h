#pragma once
// `mhcsim search`: the best ways to run a training scenario on N GPUs at a fixed global batch.
// The space (space.h) is walked, points that cannot divide are cut, the rest are checked
// against HBM (sweep::capacity, the verdict every verb gives) and the --min-headroom-gib
// constraint before they are priced by the analytic model (cost::step_estimate). What comes
// out: the top K by the objective, the Pareto fronts of throughput against memory per GPU and
// against GPUs, and the number of points cut per reason.
//
// Work is split into chunks of consecutive points, dealt round-robin to `workers` (threads,
// and MPI ranks x threads), each of which walks the space itself and prices only its chunks;
// partial results merge in any order to the same answer (ties fall to higher throughput, then
// more memory headroom, then the earlier point).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "mhcsim/search/space.h"
#include "mhcsim/specs.h"

namespace mhcsim::search {

enum class Objective { TokensPerSecond, CostPerToken, StepTime, MemoryHeadroom };
// "tokens_per_s", "cost_per_token", "step_time", "memory_headroom"; InputError("--objective") else.
Objective parse_objective(const std::string& name);
std::string_view objective_name(Objective o);

// A priced point.
struct Priced {
  int64_t index = 0;  // position in the walk's order of dividing points
  Candidate candidate;
  double step_time_s = 0;
  double tokens_per_s = 0;
  double memory_per_gpu_bytes = 0;
  double headroom_bytes = 0;  // HBM - memory per GPU
  double mfu = 0;
  double gpu_seconds_per_token = 0;  // GPUs / tokens per second: the cost per token at any price
  double gpu_hours_for_budget = 0;   // workload.token_budget at this throughput (0: no budget)
};

// The objective's value (in its own unit: tokens/s, GPU-s per token, s, bytes) and whether
// higher is better.
double objective_value(Objective o, const Priced& p);
bool higher_is_better(Objective o);
// Total order: the objective, then throughput, then the earlier point.
bool better(Objective o, const Priced& a, const Priced& b);

struct SearchOptions {
  Axes axes;                      // default_axes fills what is empty
  SpaceLimits limits;             // global batch (required) and max GPUs
  double min_headroom_bytes = 0;  // free HBM every GPU must keep
  // The token budget (workload.token_budget) may cost at most this at hardware.price_per_gpu_hour
  // (0: no limit). run_search refuses it without a budget or a price.
  double max_cost_usd = 0;
  Objective objective = Objective::TokensPerSecond;
  int64_t top = 10;
  int threads = 0;  // 0: every core
  // Called from the calling thread about every 100 ms, and once at the end (dividing points).
  std::function<void(int64_t done, int64_t total)> progress;
};

// What one worker (or the merge of several) found.
struct Partial {
  PruneCounts pruned;           // every reason (the walk's are counted by every worker: see run_partial)
  int64_t dividing_points = 0;  // points that passed the walk (priced or cut for memory/headroom)
  int64_t priced_points = 0;
  std::vector<Priced> top;           // best first, at most SearchOptions::top
  std::vector<Priced> memory_front;  // throughput vs memory per GPU, by memory
  std::vector<Priced> gpu_front;     // throughput vs GPUs, by GPUs
};
// Merges `b` into `a` (top K and fronts of the union).
void merge(Partial& a, const Partial& b, Objective o, int64_t top);

struct SearchResult {
  Objective objective = Objective::TokensPerSecond;
  int64_t global_batch_seqs = 0;
  int64_t space_points = 0;
  Partial found;
};

// Prices the chunks of worker `worker` of `workers` on `threads` threads. The walk's prune
// counts are added only by worker 0, the memory and headroom counts by whoever priced the
// point, so partials of all workers merge to the whole.
Partial run_partial(const Scenario& base, const SearchOptions& o, int worker, int workers);

// The whole search on this process's threads. Throws InputError naming the constraint when
// nothing is left to rank, with the counts per reason.
SearchResult run_search(const Scenario& base, const SearchOptions& o);
// The same check for results gathered elsewhere (MPI): InputError when `r` ranks nothing.
void require_ranked(const SearchResult& r, const SearchOptions& o);

// Prices one scenario as the search does (the shipped configuration, to compare with).
// nullopt when it does not fit its HBM.
std::optional<Priced> price(const Scenario& s, const Candidate& c);
// The candidate a scenario already is.
Candidate candidate_of(const Scenario& s);

}  // namespace mhcsim::search
