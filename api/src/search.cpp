#include "mhcsim/api/search.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "mhcsim/error.h"
#include "mhcsim/threads.h"
#include "mhcsim/units.h"

namespace mhcsim::api {

namespace {
using namespace search_args;

// The CLI holds these ranges in its flags; a Python caller gets the same message here.
template <class T>
void require_in(T value, T lo, T hi, const ArgumentName& a, ArgumentNames names) {
  const char* kind = std::is_floating_point_v<T> ? "number" : "integer";
  if constexpr (std::is_floating_point_v<T>)
    if (!std::isfinite(value))
      throw InputError(a.in(names),
                       fmt::format("{} is not a finite number (expected {} in [{}, {}])", value, kind, lo, hi));
  if (value < lo || value > hi)
    throw InputError(a.in(names), fmt::format("{} is out of range (expected {} in [{}, {}])", value, kind, lo, hi));
}

int64_t parse_gpu_count(const std::string& text, const std::string& whole, const std::string& name) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end || v < 1 || v > kMaxSearchGpus)
    throw InputError(
        name, fmt::format("'{}' is not N, A,B,C or A-B (expected GPU counts in [1, {}])", whole, kMaxSearchGpus));
  return v;
}

// "2048", "1024,2048" or "1024-2048" (every multiple of the node size in the range).
std::vector<int64_t> parse_gpus(const std::string& text, int64_t per_node, const std::string& name) {
  std::vector<int64_t> out;
  if (const auto dash = text.find('-'); dash != std::string::npos) {
    const int64_t a = parse_gpu_count(text.substr(0, dash), text, name);
    const int64_t b = parse_gpu_count(text.substr(dash + 1), text, name);
    if (a > b) throw InputError(name, fmt::format("'{}': empty range (expected A-B with A <= B)", text));
    for (int64_t g = (a + per_node - 1) / per_node * per_node; g <= b; g += per_node) out.push_back(g);
    if (out.empty()) throw InputError(name, fmt::format("'{}' holds no multiple of {} GPUs per node", text, per_node));
    return out;
  }
  for (size_t start = 0;;) {
    const size_t comma = text.find(',', start);
    const int64_t g =
        parse_gpu_count(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start), text, name);
    if (std::find(out.begin(), out.end(), g) != out.end())
      throw InputError(name, fmt::format("'{}': {} given twice", text, g));
    out.push_back(g);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

std::optional<SearchAnswer> search_named(scenarios::ScenarioTemplate& tpl, const Scenario& base, const SearchRequest& r,
                                         const search::Ranks& ranks) {
  const auto names = r.names;
  require_in<int64_t>(r.max_gpus, 0, kMaxSearchGpus, kMaxGpus, names);
  require_in<int64_t>(r.global_batch, 0, kMaxGlobalBatchSeqs, kGlobalBatch, names);
  require_in(r.min_headroom_gib, 0.0, kMaxHeadroomGib, kMinHeadroomGib, names);
  require_in(r.max_cost_usd, 0.0, kMaxCostUsd, kMaxCost, names);
  require_in<int64_t>(r.top, 1, kMaxSearchTop, kTop, names);
  require_in(r.jobs, 0, kMaxThreads, kJobs, names);
  require_in<int64_t>(r.max_sim_ops, 1, sim::kMaxSimOps, kMaxSimOps, names);
  if (base.workload.mode != WorkloadMode::Train)
    throw InputError("workload.mode", "search plans training runs (expected mode = \"train\")", {base.path, 0});
  if (r.max_cost_usd > 0 && (base.workload.token_budget <= 0 || base.hardware.price_per_gpu_hour <= 0))
    throw InputError(kMaxCost.in(names), fmt::format("needs a token budget and a price (workload.token_budget = {}, "
                                                     "hardware.price_per_gpu_hour = {}; set both with --set)",
                                                     base.workload.token_budget, base.hardware.price_per_gpu_hour));

  search::SearchOptions so;
  so.objective = search::parse_objective(r.objective);
  if (!r.gpus.empty()) so.axes.gpus = parse_gpus(r.gpus, base.hardware.gpus_per_node, kGpus.in(names));
  so.limits.global_batch_seqs = r.global_batch > 0 ? r.global_batch : search::scenario_global_batch(base);
  so.limits.max_gpus = r.max_gpus;
  so.min_headroom_bytes = r.min_headroom_gib * kGiB;
  so.max_cost_usd = r.max_cost_usd;
  so.top = r.top;
  so.threads = r.jobs;
  so.progress = r.progress;
  // Under mpirun the ranks share the work and rank 0 alone gets the answer.
  auto found = search::run_search_on_ranks(base, so, ranks);
  if (!found) return std::nullopt;

  SearchAnswer a;
  a.result = std::move(*found);
  // The shipped configuration, priced the same way, when it runs the same batch on a searched size.
  a.shipped_candidate = search::candidate_of(base);
  a.gpus = search::default_axes(base, so.axes).gpus;
  if (search::scenario_global_batch(base) == so.limits.global_batch_seqs &&
      std::find(a.gpus.begin(), a.gpus.end(), base.hardware.gpus) != a.gpus.end())
    a.shipped = search::price(base, a.shipped_candidate);

  std::vector<search::Simulated> simulated;
  if (r.simulate)
    for (const auto& p : a.result.found.top)
      simulated.push_back(search::simulate(
          search::confirmed_scenario(tpl, base, p.candidate, so.limits.global_batch_seqs), r.max_sim_ops));
  const auto& sizes = a.gpus;
  a.top = search::top_table(
      a.result.found.top,
      fmt::format("best {} of {} priced configurations by {} ({} on {} GPUs, global batch {} x {} tokens)",
                  a.result.found.top.size(), a.result.found.priced_points, search::objective_name(so.objective),
                  base.model.name,
                  sizes.size() <= 4 ? fmt::format("{}", fmt::join(sizes, ","))
                                    : fmt::format("{}..{} ({} sizes)", sizes.front(), sizes.back(), sizes.size()),
                  so.limits.global_batch_seqs, base.workload.seq_len),
      base.hardware.price_per_gpu_hour, simulated);
  a.inputs = {{"gpu", base.hardware.gpu.name},
              {"gpus", sizes},
              {"max_gpus", r.max_gpus},
              {"min_headroom_gib", r.min_headroom_gib},
              {"max_cost_usd", r.max_cost_usd > 0 ? nlohmann::json(r.max_cost_usd) : nlohmann::json()},
              {"objective", search::objective_name(so.objective)},
              {"global_batch_seqs", so.limits.global_batch_seqs},
              {"tokens_per_sequence", base.workload.seq_len},
              {"simulate", r.simulate}};
  a.results = search::to_json(a.result, a.top, a.shipped);
  return a;
}
}  // namespace

std::optional<SearchAnswer> search(scenarios::ScenarioTemplate& scenario, const Scenario& base,
                                   const SearchRequest& request, const search::Ranks& ranks) {
  return with_named_errors(request.names, search_args::kAll,
                           [&] { return search_named(scenario, base, request, ranks); });
}

}  // namespace mhcsim::api
