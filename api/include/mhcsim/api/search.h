#pragma once
// `search`: the best parallel layouts of a training scenario on N GPUs at a fixed global batch
// (search/), the scenario's own layout priced the same way to compare with, and the top K run
// again through the simulator on request. The CLI prints or writes the answer; the Python
// module returns its JSON.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mhcsim/api/argument_names.h"
#include "mhcsim/reports/table.h"
#include "mhcsim/scenarios/template.h"
#include "mhcsim/search/distributed.h"
#include "mhcsim/search/output.h"
#include "mhcsim/sim/schedule.h"
#include "mhcsim/specs.h"

namespace mhcsim::api {

// The arguments' ranges, for the CLI's flags and the checks here alike.
inline constexpr int64_t kMaxSearchGpus = int64_t{1} << 24;
inline constexpr int64_t kMaxGlobalBatchSeqs = int64_t{1} << 40;
inline constexpr int64_t kMaxSearchTop = 100000;
inline constexpr double kMaxHeadroomGib = 1e6, kMaxCostUsd = 1e15;

namespace search_args {
inline constexpr ArgumentName kGpus{"--gpus", "gpus"}, kMaxGpus{"--max-gpus", "max_gpus"},
    kGlobalBatch{"--global-batch", "global_batch"}, kMinHeadroomGib{"--min-headroom-gib", "min_headroom_gib"},
    kMaxCost{"--max-cost-usd", "max_cost_usd"}, kObjective{"--objective", "objective"}, kTop{"--top", "top"},
    kJobs{"--jobs", "jobs"}, kMaxSimOps{"--max-sim-ops", "max_sim_ops"};
inline constexpr ArgumentName kAll[] = {kGpus,      kMaxGpus, kGlobalBatch, kMinHeadroomGib, kMaxCost,
                                        kObjective, kTop,     kJobs,        kMaxSimOps};
}  // namespace search_args

struct SearchRequest {
  ArgumentNames names = ArgumentNames::Flags;
  std::string gpus;             // "N", "A,B,C" or "A-B" (every multiple of the node size); empty: hardware.gpus
  int64_t max_gpus = 0;         // 0: no limit
  int64_t global_batch = 0;     // sequences per step; 0: the scenario's
  double min_headroom_gib = 0;  // free HBM every GPU must keep
  double max_cost_usd = 0;      // 0: no limit on the token budget's cost
  std::string objective = "tokens_per_s";
  int64_t top = 10;
  int jobs = 0;           // threads; 0: one per core
  bool simulate = false;  // run the top K through the simulator too
  int64_t max_sim_ops = sim::kDefaultMaxSimOps;
  std::function<void(int64_t done, int64_t total)> progress;  // about every 100 ms
};

struct SearchAnswer {
  search::SearchResult result;
  std::vector<int64_t> gpus;  // the job sizes searched
  search::Candidate shipped_candidate;
  // The scenario's own layout, when it runs the same batch on a searched size and fits.
  std::optional<search::Priced> shipped;
  reports::Table top{"", {}};  // the top K, with the simulated figures when asked
  nlohmann::json inputs;       // the document's inputs
  nlohmann::json results;      // the document's results (search::to_json)
};

// Checks the request (InputError naming each argument as request.names says), searches over
// `ranks` (MPI; rank 0 gets the answer, the others nullopt) and prices the shipped layout.
// `base` is `scenario` instantiated, its calibration attached.
std::optional<SearchAnswer> search(scenarios::ScenarioTemplate& scenario, const Scenario& base,
                                   const SearchRequest& request, const search::Ranks& ranks = {});

}  // namespace mhcsim::api
