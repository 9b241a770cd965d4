// `mhcsim search`: the best parallel configurations of a training scenario on N GPUs at a fixed
// global batch (search/): the top K by an objective with what separates each from the next,
// the counts of points pruned per reason, and the Pareto fronts as JSON (-o PREFIX).
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "common.h"
#include "mhcsim/threads.h"
#include "mhcsim/api/search.h"
#include "mhcsim/error.h"
#include "mhcsim/scenarios/template.h"
#include "mhcsim/search/output.h"
#include "mhcsim/search/report.h"
#include "mhcsim/sweep/progress.h"
#include "verbs.h"

namespace mhcsim::cli {
namespace {

struct SearchVerbOptions {
  ScenarioOptions scn;
  OutputOptions out;
  api::SearchRequest request;
  std::string report_dir;
  std::string output_prefix;
  bool force = false;
};

void run(const SearchVerbOptions& o) {
  const auto path = scenario_file(o.scn);
  scenarios::ScenarioTemplate tpl(scenarios::read_scenario_file(path), path.string(), scenario_overrides(o.scn));
  Scenario base = tpl.instantiate(std::vector<scenarios::Override>{});
  attach_calibration(base);
  if (!o.output_prefix.empty()) search::require_json_output(o.output_prefix, o.force);
  if (!o.report_dir.empty()) reports::require_report_directory(o.report_dir, o.force, "--report");
  auto request = o.request;
  request.progress = sweep::progress_reporter(std::cerr, sweep::stderr_is_terminal(), "search");
  // Under mpirun the ranks share the work and rank 0 alone prints and writes.
  const auto answer = api::search(tpl, base, request, search::mpi_ranks());
  if (!answer) return;
  const auto& a = *answer;
  const auto& r = a.result;
  const auto doc = api::document({"search", base.name, path.string(), o.scn.overrides}, a.inputs, a.results);
  if (!o.output_prefix.empty()) search::write_json_file(doc, o.output_prefix, o.force);
  if (!o.report_dir.empty())
    reports::write_report(search::search_report(base, r, a.top, a.shipped), o.report_dir, o.force);
  if (o.out.json) return print_json(doc);

  std::cout << fmt::format("# space: {} points; pruned: {}\n", r.space_points, r.found.pruned.summary());
  std::cout << fmt::format("# {} divide, {} fit and were priced\n", r.found.dividing_points, r.found.priced_points);
  a.top.print_text(std::cout);
  if (a.shipped) {
    const auto& best = r.found.top.front();
    const double vb = search::objective_value(r.objective, best), vs = search::objective_value(r.objective, *a.shipped);
    std::cout << fmt::format("# shipped ({}): {:.0f} tokens/s, step {:.3f} s; best {} {:+.1f}% ({})\n",
                             path.filename().string(), a.shipped->tokens_per_s, a.shipped->step_time_s,
                             search::objective_name(r.objective), 100 * (vb - vs) / vs,
                             search::differences(a.shipped_candidate, best.candidate));
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
  cmd->add_option("--gpus", opts->request.gpus,
                  "Job sizes: N, A,B,C, or A-B (every multiple of the node size); default: hardware.gpus")
      ->type_name("N|A,B|A-B");
  cmd->add_option("--max-gpus", opts->request.max_gpus, "Skip job sizes above this")
      ->check(int_flag(1, api::kMaxSearchGpus));
  cmd->add_option("--global-batch", opts->request.global_batch,
                  "Sequences per step (default: workload.global_batch_seqs or DP x micro_batch_seqs x micro_batches)")
      ->check(int_flag(1, api::kMaxGlobalBatchSeqs));
  cmd->add_option("--min-headroom-gib", opts->request.min_headroom_gib, "Free HBM every GPU must keep (GiB)")
      ->check(number_flag(0, api::kMaxHeadroomGib));
  cmd->add_option("--max-cost-usd", opts->request.max_cost_usd,
                  "Cut layouts whose token budget (workload.token_budget) would cost more than this at "
                  "hardware.price_per_gpu_hour (USD; at least a cent: no limit is the default)")
      ->check(number_flag(0.01, api::kMaxCostUsd));
  cmd->add_option("--objective", opts->request.objective, "tokens_per_s, cost_per_token, step_time or memory_headroom")
      ->capture_default_str();
  cmd->add_option("--top", opts->request.top, "Configurations to print")
      ->check(int_flag(1, api::kMaxSearchTop))
      ->capture_default_str();
  cmd->add_option("-j,--jobs", opts->request.jobs, "Worker threads (default: all cores)")
      ->check(int_flag(0, kMaxThreads));
  cmd->add_option("-o,--output", opts->output_prefix, "Write PREFIX.json (counts, top K, Pareto fronts)")
      ->transform(output_prefix_flag("a file prefix, e.g. out/search"));
  cmd->add_option("--report", opts->report_dir,
                  "Write a report (report.html, report.md, figures/ with CSV data): best vs the scenario's layout, "
                  "top K, Pareto fronts, points cut per reason")
      ->check(path_flag("a directory name"));
  cmd->add_flag("--force", opts->force, "Replace an existing PREFIX.json or report directory mhcsim wrote");
  cmd->add_flag("--simulate", opts->request.simulate, "Re-evaluate the top K with the simulator");
  add_sim_budget_option(*cmd, opts->request.max_sim_ops);
  cmd->callback([opts] { run(*opts); });
}

}  // namespace mhcsim::cli
