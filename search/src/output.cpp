#include "mhcsim/search/output.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "mhcsim/atomic_write.h"
#include "mhcsim/cost/serve.h"
#include "mhcsim/error.h"
#include "mhcsim/sweep/evaluators.h"
#include "mhcsim/units.h"

namespace mhcsim::search {
namespace {

std::string mhc_block_name(int64_t b) {
  if (b == kMhcRecomputeOff) return "off";
  if (b == kMhcRecomputeOptimal) return "optimal";
  return std::to_string(b);
}

// The parameter columns and their cells, in Candidate's order: one list for the table and the JSON.
std::vector<reports::Column> parameter_columns() {
  return {{"gpus", "GPUs"},
          {"tp", "TP"},
          {"cp", "CP"},
          {"pp", "PP"},
          {"dp", "DP"},
          {"ep", "EP"},
          {"schedule", "schedule"},
          {"virtual_stages", "v"},
          {"combined_1f1b", "comb. 1F1B"},
          {"micro_batch_seqs", "mb seqs"},
          {"micro_batches", "micro-batches"},
          {"sequence_parallel", "SP"},
          {"zero_stage", "ZeRO"},
          {"activation_recompute", "recompute"},
          {"mhc_recompute_block", "mHC block"}};
}

std::vector<reports::Cell> parameter_cells(const Candidate& c) {
  return {c.gpus,
          c.tp,
          c.cp,
          c.pp,
          c.dp,
          c.ep,
          std::string(to_string(c.schedule)),
          c.virtual_stages,
          c.combined_1f1b,
          c.micro_batch_seqs,
          c.micro_batches,
          c.sequence_parallel,
          c.zero_stage,
          std::string(to_string(c.recompute)),
          mhc_block_name(c.mhc_block)};
}

std::vector<reports::Column> metric_columns() {
  return {{"step_time_s", "step (s)", 3},
          {"tokens_per_s", "tokens/s", 0},
          {"memory_per_gpu_bytes", "memory/GPU (GiB)", 1, 1.0 / kGiB},
          {"headroom_bytes", "headroom (GiB)", 1, 1.0 / kGiB},
          {"mfu", "MFU (%)", 1, 100},
          {"gpu_seconds_per_token", "GPU-us/token", 2, 1e6}};
}

std::vector<reports::Cell> metric_cells(const Priced& p) {
  return {p.step_time_s, p.tokens_per_s, p.memory_per_gpu_bytes, p.headroom_bytes, p.mfu, p.gpu_seconds_per_token};
}

nlohmann::json front_json(const std::vector<Priced>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& p : v) a.push_back(to_json(p));
  return a;
}

}  // namespace

Scenario confirmed_scenario(scenarios::ScenarioTemplate& tpl, const Scenario& base, const Candidate& c,
                            int64_t global_batch_seqs) {
  std::vector<scenarios::Override> o;
  for (const auto& kv : overrides(c, global_batch_seqs)) o.push_back({kv.key, kv.value});
  try {
    Scenario s = tpl.instantiate(o);
    s.calibration = base.calibration;
    return s;
  } catch (const InputError& e) {
    throw std::logic_error(
        fmt::format("search let through a configuration the scenario validator refuses "
                    "({}): {}",
                    differences(candidate_of(base), c), e.what()));
  }
}

Simulated simulate(const Scenario& s, int64_t max_sim_ops) {
  const auto evaluator = sweep::simulated_evaluator(max_sim_ops);
  Simulated out;
  try {
    const auto e = evaluator.evaluate(s);
    out.infeasible_reason = e.infeasible_reason;
    for (size_t m = 0; m < evaluator.metrics.size(); ++m) {
      if (evaluator.metrics[m].column.key == "step_time_s") out.step_time_s = e.values[m];
      if (evaluator.metrics[m].column.key == "tokens_per_s") out.tokens_per_s = e.values[m];
    }
  } catch (const InputError& e) {  // past --max-sim-ops
    out.infeasible_reason = e.what();
  }
  return out;
}

reports::Table top_table(const std::vector<Priced>& rows, const std::string& title, double price_per_gpu_hour,
                         const std::vector<Simulated>& simulated) {
  std::vector<reports::Column> cols = {{"rank", "#"}};
  for (auto& c : parameter_columns()) cols.push_back(std::move(c));
  for (auto& c : metric_columns()) cols.push_back(std::move(c));
  const bool priced = price_per_gpu_hour > 0;
  if (priced) cols.push_back({"usd_per_million_tokens", "USD/1M tokens", 3});
  // The token budget's cost, when the scenario has a budget (workload.token_budget).
  const bool budget = priced && !rows.empty() && rows.front().gpu_hours_for_budget > 0;
  if (budget) cols.push_back({"budget_cost_usd", "budget (M USD)", 2, 1e-6});
  const bool sim = !simulated.empty();
  if (sim) {
    cols.push_back({"simulated_step_time_s", "sim step (s)", 3});
    cols.push_back({"simulated_tokens_per_s", "sim tokens/s", 0});
  }
  cols.push_back({"differs_from_previous", "vs row above"});
  reports::Table t(title, std::move(cols));
  for (size_t i = 0; i < rows.size(); ++i) {
    const auto& p = rows[i];
    std::vector<reports::Cell> row = {static_cast<int64_t>(i + 1)};
    for (auto& c : parameter_cells(p.candidate)) row.push_back(std::move(c));
    for (auto& c : metric_cells(p)) row.push_back(std::move(c));
    if (priced) row.emplace_back(cost::usd_per_million_tokens(price_per_gpu_hour, 1.0 / p.gpu_seconds_per_token));
    if (budget) row.emplace_back(p.gpu_hours_for_budget * price_per_gpu_hour);
    if (sim) {
      const auto& s = simulated[i];
      if (s.infeasible_reason.empty()) {
        row.emplace_back(s.step_time_s);
        row.emplace_back(s.tokens_per_s);
      } else {
        row.emplace_back();
        row.emplace_back();
      }
    }
    row.emplace_back(i == 0 ? std::string("-") : differences(rows[i - 1].candidate, p.candidate));
    t.add_row(std::move(row));
  }
  return t;
}

nlohmann::json to_json(const Priced& p) {
  reports::Table t("", parameter_columns());
  t.add_row(parameter_cells(p.candidate));
  nlohmann::json j = t.to_json()[0];
  reports::Table m("", metric_columns());
  m.add_row(metric_cells(p));
  j.update(m.to_json()[0]);
  return j;
}

nlohmann::json to_json(const SearchResult& r, const reports::Table& top, const std::optional<Priced>& shipped) {
  nlohmann::json pruned = nlohmann::json::object();
  for (size_t i = 0; i < kPruneReasons; ++i)
    pruned[std::string(prune_name(static_cast<Prune>(i)))] = r.found.pruned.points[i];
  return {{"objective", objective_name(r.objective)},
          {"global_batch_seqs", r.global_batch_seqs},
          {"space_points", r.space_points},
          {"dividing_points", r.found.dividing_points},
          {"priced_points", r.found.priced_points},
          {"pruned", pruned},
          {"top", top.to_json()},
          {"shipped", shipped ? to_json(*shipped) : nlohmann::json()},
          {"pareto",
           {{"throughput_vs_memory", front_json(r.found.memory_front)},
            {"throughput_vs_gpus", front_json(r.found.gpu_front)}}}};
}

namespace {
constexpr const char* kWrittenBy = "search";  // the verb --force checks and the file records
}  // namespace

void require_json_output(const std::string& prefix, bool force) {
  if (prefix.empty()) throw InputError("-o", "empty path (expected a file prefix such as out/search)");
  require_output_file(prefix + ".json", force, "-o", kWrittenBy);
}

void write_json_file(const nlohmann::json& doc, const std::string& prefix, bool force) {
  require_json_output(prefix, force);
  write_file_atomically(prefix + ".json", with_written_by(doc.dump(1), kWrittenBy) + "\n");
}

}  // namespace mhcsim::search
