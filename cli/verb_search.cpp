// `mhcsim search`: the best parallel configurations of a training scenario on N GPUs at a fixed
// global batch (search/): the top K by an objective with what separates each from the next,
// the counts of points pruned per reason, and the Pareto fronts as JSON (-o PREFIX).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include <charconv>
#include <iostream>
#include <memory>

#include "common.h"
#include "mhcsim/threads.h"
#include "mhcsim/atomic_write.h"
#include "mhcsim/error.h"
#include "mhcsim/scenarios/template.h"
#include "mhcsim/search/distributed.h"
#include "mhcsim/search/output.h"
#include "mhcsim/search/report.h"
#include "mhcsim/sim/schedule.h"
#include "mhcsim/sweep/progress.h"
#include "mhcsim/units.h"
#include "verbs.h"

namespace mhcsim::cli {
namespace {

struct SearchVerbOptions {
  ScenarioOptions scn;
  OutputOptions out;
  std::string gpus;
  int64_t max_gpus = 0;
  int64_t global_batch = 0;
  double min_headroom_gib = 0;
  double max_cost_usd = 0;
  std::string report_dir;
  std::string objective = "tokens_per_s";
  int64_t top = 10;
  int jobs = 0;
  std::string output_prefix;
  bool force = false;
  bool simulate = false;
  int64_t max_sim_ops = sim::kDefaultMaxSimOps;
};

int64_t parse_count(const std::string& text, const std::string& whole) {
  int64_t v = 0;
  const char* end = text.data() + text.size();
  const auto [p, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || p != end || v < 1 || v > (int64_t{1} << 24))
    throw InputError("--gpus",
                     fmt::format("'{}' is not N, A,B,C or A-B (expected GPU counts in [1, 16777216])", whole));
  return v;
}

// "2048", "1024,2048" or "1024-2048" (every multiple of the node size in the range).
std::vector<int64_t> parse_gpus(const std::string& text, int64_t per_node) {
  std::vector<int64_t> out;
  if (const auto dash = text.find('-'); dash != std::string::npos) {
    const int64_t a = parse_count(text.substr(0, dash), text), b = parse_count(text.substr(dash + 1), text);
    if (a > b) throw InputError("--gpus", fmt::format("'{}': empty range (expected A-B with A <= B)", text));
    for (int64_t g = (a + per_node - 1) / per_node * per_node; g <= b; g += per_node) out.push_back(g);
    if (out.empty())
      throw InputError("--gpus", fmt::format("'{}' holds no multiple of {} GPUs per node", text, per_node));
    return out;
  }
  for (size_t start = 0;;) {
    const size_t comma = text.find(',', start);
    const int64_t g =
        parse_count(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start), text);
    if (std::find(out.begin(), out.end(), g) != out.end())
      throw InputError("--gpus", fmt::format("'{}': {} given twice", text, g));
    out.push_back(g);
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

void run(const SearchVerbOptions& o) {
  const auto path = scenario_file(o.scn);
  scenarios::ScenarioTemplate tpl(scenarios::read_scenario_file(path), path.string(), scenario_overrides(o.scn));
  Scenario base = tpl.instantiate(std::vector<scenarios::Override>{});
  attach_calibration(base);
  if (base.workload.mode != WorkloadMode::Train)
    throw InputError("workload.mode", "search plans training runs (expected mode = \"train\")");
  if (!o.output_prefix.empty()) require_output_file(o.output_prefix + ".json", o.force);
  if (!o.report_dir.empty()) reports::require_report_directory(o.report_dir, o.force);
  if (o.max_cost_usd > 0 && (base.workload.token_budget <= 0 || base.hardware.price_per_gpu_hour <= 0))
    throw InputError("--max-cost-usd", fmt::format("needs a token budget and a price (workload.token_budget = {}, "
                                                   "hardware.price_per_gpu_hour = {}; set both with --set)",
                                                   base.workload.token_budget, base.hardware.price_per_gpu_hour));

  search::SearchOptions so;
  so.objective = search::parse_objective(o.objective);
  if (!o.gpus.empty()) so.axes.gpus = parse_gpus(o.gpus, base.hardware.gpus_per_node);
  so.limits.global_batch_seqs = o.global_batch > 0 ? o.global_batch : search::scenario_global_batch(base);
  so.limits.max_gpus = o.max_gpus;
  so.min_headroom_bytes = o.min_headroom_gib * kGiB;
  so.max_cost_usd = o.max_cost_usd;
  so.top = o.top;
  so.threads = o.jobs;
  if (sweep::progress_wanted())
    so.progress = [](int64_t done, int64_t total) { sweep::draw_progress(std::cerr, done, total); };
  // Under mpirun the ranks share the work and rank 0 alone prints and writes.
  const auto on_rank_0 = search::run_search_on_ranks(base, so, search::mpi_ranks());
  if (!on_rank_0) return;
  const auto& r = *on_rank_0;

  // The shipped configuration, priced the same way, when it runs the same batch on a searched size.
  const auto shipped_c = search::candidate_of(base);
  const auto& sizes = search::default_axes(base, so.axes).gpus;
  std::optional<search::Priced> shipped;
  if (search::scenario_global_batch(base) == so.limits.global_batch_seqs &&
      std::find(sizes.begin(), sizes.end(), base.hardware.gpus) != sizes.end())
    shipped = search::price(base, shipped_c);

  std::vector<search::Simulated> simulated;
  for (const auto& p : r.found.top) {
    const Scenario s = search::confirmed_scenario(tpl, base, p.candidate, so.limits.global_batch_seqs);
    if (o.simulate) simulated.push_back(search::simulate(s, o.max_sim_ops));
  }
  const auto table = search::top_table(
      r.found.top,
      fmt::format("best {} of {} priced configurations by {} ({} on {} GPUs, global batch {} x {} tokens)",
                  r.found.top.size(), r.found.priced_points, search::objective_name(so.objective), base.model.name,
                  sizes.size() <= 4 ? fmt::format("{}", fmt::join(sizes, ","))
                                    : fmt::format("{}..{} ({} sizes)", sizes.front(), sizes.back(), sizes.size()),
                  so.limits.global_batch_seqs, base.workload.seq_len),
      base.hardware.price_per_gpu_hour, simulated);
  const nlohmann::json inputs = {
      {"gpu", base.hardware.gpu.name},
      {"gpus", sizes},
      {"max_gpus", o.max_gpus},
      {"min_headroom_gib", o.min_headroom_gib},
      {"max_cost_usd", o.max_cost_usd > 0 ? nlohmann::json(o.max_cost_usd) : nlohmann::json()},
      {"objective", search::objective_name(so.objective)},
      {"global_batch_seqs", so.limits.global_batch_seqs},
      {"tokens_per_sequence", base.workload.seq_len},
      {"simulate", o.simulate}};
  const auto doc =
      api::document({"search", base.name, path.string(), o.scn.overrides}, inputs, search::to_json(r, table, shipped));
  if (!o.output_prefix.empty()) search::write_json_file(doc, o.output_prefix, o.force);
  if (!o.report_dir.empty())
    reports::write_report(search::search_report(base, r, table, shipped), o.report_dir, o.force);
  if (o.out.json) return print_json(doc);

  std::cout << fmt::format("# space: {} points; pruned: {}\n", r.space_points, r.found.pruned.summary());
  std::cout << fmt::format("# {} divide, {} fit and were priced\n", r.found.dividing_points, r.found.priced_points);
  table.print_text(std::cout);
  if (shipped) {
    const auto& best = r.found.top.front();
    const double vb = search::objective_value(so.objective, best), vs = search::objective_value(so.objective, *shipped);
    std::cout << fmt::format("# shipped ({}): {:.0f} tokens/s, step {:.3f} s; best {} {:+.1f}% ({})\n",
                             path.filename().string(), shipped->tokens_per_s, shipped->step_time_s,
                             search::objective_name(so.objective), 100 * (vb - vs) / vs,
                             search::differences(shipped_c, best.candidate));
  }
  std::cout << fmt::format("# Pareto fronts: {} points throughput vs memory/GPU, {} throughput vs GPUs{}\n",
                           r.found.memory_front.size(), r.found.gpu_front.size(),
                           o.output_prefix.empty() ? "" : fmt::format("; wrote {}.json", o.output_prefix));
  if (!o.report_dir.empty())
    std::cout << fmt::format("# report written to {}/report.html and report.md\n", o.report_dir);
}

}  // namespace

void setup_search(CLI::App& app) {
  auto opts = std::make_shared<SearchVerbOptions>();
  auto* cmd = app.add_subcommand(
      "search", "Find the best parallel configurations of a training scenario at a fixed global batch");
  add_scenario_options(*cmd, opts->scn);
  add_output_options(*cmd, opts->out);
  cmd->add_option("--gpus", opts->gpus,
                  "Job sizes: N, A,B,C, or A-B (every multiple of the node size); default: hardware.gpus")
      ->type_name("N|A,B|A-B");
  cmd->add_option("--max-gpus", opts->max_gpus, "Skip job sizes above this")->check(int_flag(1, int64_t{1} << 24));
  cmd->add_option("--global-batch", opts->global_batch,
                  "Sequences per step (default: workload.global_batch_seqs or DP x micro_batch_seqs x micro_batches)")
      ->check(int_flag(1, int64_t{1} << 40));
  cmd->add_option("--min-headroom-gib", opts->min_headroom_gib, "Free HBM every GPU must keep (GiB)")
      ->check(number_flag(0, 1e6));
  cmd->add_option("--max-cost-usd", opts->max_cost_usd,
                  "Cut layouts whose token budget (workload.token_budget) would cost more than this at "
                  "hardware.price_per_gpu_hour (USD)")
      ->check(number_flag(0, 1e15));
  cmd->add_option("--objective", opts->objective, "tokens_per_s, cost_per_token, step_time or memory_headroom")
      ->capture_default_str();
  cmd->add_option("--top", opts->top, "Configurations to print")->check(int_flag(1, 100000))->capture_default_str();
  cmd->add_option("-j,--jobs", opts->jobs, "Worker threads (default: all cores)")->check(int_flag(0, kMaxThreads));
  cmd->add_option("-o,--output", opts->output_prefix, "Write PREFIX.json (counts, top K, Pareto fronts)")
      ->transform(output_prefix_flag("a file prefix, e.g. out/search"));
  cmd->add_option("--report", opts->report_dir,
                  "Write a report (report.html, report.md, figures/ with CSV data): best vs the scenario's layout, "
                  "top K, Pareto fronts, points cut per reason")
      ->check(path_flag("a directory name"));
  cmd->add_flag("--force", opts->force, "Replace an existing PREFIX.json or report directory mhcsim wrote");
  cmd->add_flag("--simulate", opts->simulate, "Re-evaluate the top K with the simulator");
  add_sim_budget_option(*cmd, opts->max_sim_ops);
  cmd->callback([opts] { run(*opts); });
}

}  // namespace mhcsim::cli
