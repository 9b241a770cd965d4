#pragma once
// What `mhcsim search` shows and writes: the top K as a Table (one field list for the text and
// the JSON), each row saying what separates it from the row above, and PREFIX.json with the
// counts per pruning reason, the top K and the two Pareto fronts.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mhcsim/reports/table.h"
#include "mhcsim/scenarios/template.h"
#include "mhcsim/search/search.h"

namespace mhcsim::search {

// A top-K point run through the simulator (sweep::simulated_evaluator).
struct Simulated {
  double step_time_s = 0;
  double tokens_per_s = 0;
  std::string infeasible_reason;  // e.g. past --max-sim-ops; empty when simulated
};

// The candidate as a scenario the validator accepted: `tpl` instantiated with overrides(c),
// with `base`'s calibration profile. Throws std::logic_error when the validator refuses a
// point the walk let through (the two disagree: a bug).
Scenario confirmed_scenario(scenarios::ScenarioTemplate& tpl, const Scenario& base, const Candidate& c,
                            int64_t global_batch_seqs);
Simulated simulate(const Scenario& s, int64_t max_sim_ops);

// Rows: rank, the candidate's parameters, the metrics (and the simulated ones when given, one
// per row), and what differs from the row above. `price_per_gpu_hour` > 0 adds USD per 1M tokens.
reports::Table top_table(const std::vector<Priced>& rows, const std::string& title, double price_per_gpu_hour,
                         const std::vector<Simulated>& simulated = {});
// One Priced point as a JSON object (parameters and metrics).
nlohmann::json to_json(const Priced& p);
// The results of a search document (api/document.h): {"objective", "global_batch_seqs",
//  "space_points", "dividing_points", "priced_points", "pruned": {reason: points}, "top": top's
//  rows, "shipped": {...} or null, "pareto": {"throughput_vs_memory": [...],
//  "throughput_vs_gpus": [...]}}
nlohmann::json to_json(const SearchResult& r, const reports::Table& top, const std::optional<Priced>& shipped);
// InputError("-o") for a prefix whose PREFIX.json cannot be written, or is not search's to
// replace: checked before the search runs, and again by write_json_file.
void require_json_output(const std::string& prefix, bool force);
// Writes PREFIX.json atomically.
void write_json_file(const nlohmann::json& doc, const std::string& prefix, bool force);

}  // namespace mhcsim::search
