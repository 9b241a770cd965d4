// `mhcsim sweep`: what-if cross products of scenario overrides, priced by the analytic model
// (or the simulator with --simulate) on every core; CSV and JSON out, best points on stdout.
#include <fmt/format.h>

#include <cmath>
#include <iostream>
#include <memory>
#include <optional>

#include "common.h"
#include "mhcsim/threads.h"
#include "mhcsim/error.h"
#include "mhcsim/scenarios/template.h"
#include "mhcsim/sweep/evaluators.h"
#include "mhcsim/sweep/mpi.h"
#include "mhcsim/sweep/output.h"
#include "mhcsim/sweep/progress.h"
#include "mhcsim/version.h"
#include "verbs.h"

namespace mhcsim::cli {
namespace {

struct SweepOptions {
  ScenarioOptions scn;
  OutputOptions out;
  std::vector<std::string> axes;
  bool simulate = false;
  int jobs = 0;
  std::string output_prefix;
  bool force = false;
  int64_t top = 0;
  std::string by = "step_time";
  int64_t max_sim_ops = sim::kDefaultMaxSimOps;
};

// The base scenario (no axis applied), or the error that makes it invalid.
struct Base {
  std::optional<Scenario> scenario;
  std::optional<InputError> error;
};

Base instantiate_base(scenarios::ScenarioTemplate& tpl) {
  try {
    return {tpl.instantiate(std::vector<int>{}), std::nullopt};
  } catch (const InputError& e) {
    return {std::nullopt, e};
  }
}

// A base scenario that no point repairs (every point failed for the base's own reason) is bad
// input, exit 2 with that reason, not a sweep of infeasible points. A base that a swept value
// repairs (pp=6 in the file, swept over 8 and 16) is fine. Checked before any output: a first
// pass stops at the first point that is feasible or fails for another reason.
struct Repaired {};
void require_some_point_beyond_base(const Base& base, scenarios::ScenarioTemplate& tpl, const sweep::Grid& grid,
                                    const sweep::Evaluator& evaluator, int jobs) {
  if (!base.error) return;
  try {
    sweep::stream_sweep(tpl, grid, evaluator, {jobs, {}}, [&](const sweep::SweepResult& b, int64_t) {
      for (const auto& reason : b.reasons)
        if (reason != base.error->what()) throw Repaired{};
    });
  } catch (const Repaired&) {
    return;
  }
  throw *base.error;
}

// The profile is read once from the base scenario and shared by every point that keeps its
// path; a point that sweeps calibration.profile reads its own.
sweep::Evaluator with_calibration(sweep::Evaluator e, const Base& b) {
  // An inconsistent base: its points report why, one by one.
  if (!b.scenario || !b.scenario->calibration_path) return e;
  Scenario base = *b.scenario;
  attach_calibration(base);
  auto inner = e.evaluate;
  e.evaluate = [inner, path = *base.calibration_path, profile = base.calibration](const Scenario& s) {
    if (!s.calibration_path || *s.calibration_path != path) {
      Scenario own = s;
      attach_calibration(own);
      return inner(own);
    }
    Scenario calibrated = s;
    calibrated.calibration = profile;
    return inner(calibrated);
  };
  return e;
}

// Rows go out as their blocks arrive: to the files (-o), to stdout as text or JSON rows when
// there is no --top, into the top K otherwise. Nothing holds the whole sweep.
void run(const SweepOptions& o) {
  const auto path = scenario_file(o.scn);
  const auto overrides = scenario_overrides(o.scn);
  scenarios::ScenarioTemplate tpl(scenarios::read_scenario_file(path), path.string(), overrides);
  std::vector<sweep::SweepAxis> axes;
  for (const auto& text : o.axes) axes.push_back(sweep::parse_sweep_axis(text));
  const sweep::Grid grid(std::move(axes));
  grid.require_unset(overrides);
  if (!o.output_prefix.empty()) sweep::require_outputs(o.output_prefix, o.force);  // before the work
  const Base base = instantiate_base(tpl);
  const auto evaluator =
      with_calibration(o.simulate ? sweep::simulated_evaluator(o.max_sim_ops) : sweep::analytic_evaluator(), base);
  (void)sweep::metric_index(evaluator.metrics, o.by);  // --by before the work, --top or not
  require_some_point_beyond_base(base, tpl, grid, evaluator, o.jobs);

  sweep::SweepOptions run_opts{o.jobs, {}};
  run_opts.progress = sweep::progress_reporter(std::cerr, sweep::stderr_is_terminal(), "sweep");
  const nlohmann::json meta = {{"scenario", path.string()},
                               {"overrides", o.scn.overrides},
                               {"sweep", o.axes},
                               {"model", evaluator.name},
                               {"mhcsim_version", kVersion}};
  // --json on stdout is a document (api/document.h); PREFIX.json keeps its manifest (`meta`).
  const nlohmann::json doc_meta =
      api::document_meta({"sweep", base.scenario ? base.scenario->name : "", path.string(), o.scn.overrides});
  const nlohmann::json inputs = {{"sweep", o.axes},
                                 {"model", evaluator.name},
                                 {"top", o.top},
                                 {"by", o.top > 0 ? nlohmann::json(o.by) : nlohmann::json()}};
  // Under mpirun every rank evaluates its share of the blocks and rank 0 alone prints and writes.
  const sweep::StreamOptions stream{1024, 0, sweep::mpi_ranks()};
  if (stream.ranks.rank != 0) {
    try {
      sweep::stream_sweep(
          tpl, grid, evaluator, {o.jobs, {}}, [](const sweep::SweepResult&, int64_t) {}, stream);
    } catch (const std::exception& e) {
      std::cerr << "mhcsim: error: rank " << stream.ranks.rank << ": " << e.what() << "\n";
      sweep::abort_all(1);
    }
    return;
  }
  const bool top = o.top > 0;
  const bool stream_stdout = !top && o.output_prefix.empty();
  sweep::TopPoints best(o.by, top ? o.top : 0);
  int64_t feasible = 0;
  bool first_rows = true;
  const std::string title = fmt::format("sweep: {} points ({} model)", grid.size(), evaluator.name);
  if (stream_stdout && o.out.json)
    std::cout << "{\"meta\": " << doc_meta.dump() << ",\n\"inputs\": " << inputs.dump()
              << ",\n\"results\": {\"rows\": [";
  const auto on_block = [&](const sweep::SweepResult& b, int64_t first) {
    feasible += b.feasible_count();
    if (top) best.add(b, first);
    if (!stream_stdout) return;
    const auto t = sweep::to_table(b, {}, 0, b.points, title);
    if (o.out.json) {
      for (const auto& row : t.to_json()) {
        std::cout << (first_rows ? "\n" : ",\n") << row.dump();
        first_rows = false;
      }
    } else {
      t.print_text(std::cout, first_rows);
    }
    first_rows = false;
  };
  const auto run_sweep = [&](const sweep::BlockSink& also) {
    sweep::stream_sweep(
        tpl, grid, evaluator, run_opts,
        [&](const sweep::SweepResult& b, int64_t first) {
          also(b, first);
          on_block(b, first);
        },
        stream);
  };
  if (o.output_prefix.empty())
    run_sweep([](const sweep::SweepResult&, int64_t) {});
  else
    sweep::stream_outputs(grid.axes(), evaluator.metrics, meta, o.output_prefix, o.force, run_sweep);

  if (stream_stdout) {
    if (o.out.json)
      std::cout << fmt::format("\n],\n\"points\": {},\n\"feasible_points\": {}}}}}\n", grid.size(), feasible);
    else
      std::cout << fmt::format("# {} points, {} feasible\n", grid.size(), feasible);
    return;
  }
  const std::vector<int64_t> shown = top ? best.order() : std::vector<int64_t>{};
  const auto& kept = best.kept();
  const std::string top_title =
      top ? fmt::format("best {} of {} feasible points by {} ({} model)", shown.size(), feasible,
                        evaluator.metrics[sweep::metric_index(evaluator.metrics, o.by)].column.key, evaluator.name)
          : title;
  const auto table = sweep::to_table(kept, shown, 0, static_cast<int64_t>(shown.size()), top_title);
  if (o.out.json) {
    print_json({{"meta", doc_meta},
                {"inputs", inputs},
                {"results", {{"points", grid.size()}, {"feasible_points", feasible}, {"rows", table.to_json()}}}});
    return;
  }
  if (top) table.print_text(std::cout);
  // Rows that run different global batches do not compare fairly (a larger batch amortises the
  // bubble and the DP sync): say so under the table.
  const size_t gb = sweep::metric_index(evaluator.metrics, "global_batch_seqs");
  double lo = 0, hi = 0;
  for (const int64_t p : shown) {
    const double v = kept.value(p, gb);
    if (std::isnan(v)) continue;
    lo = lo == 0 ? v : std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (hi > lo && lo > 0)
    std::cout << fmt::format(
        "# note: these rows run global batches of {:.0f} to {:.0f} sequences; fix one with "
        "--set workload.global_batch_seqs=N to compare at the same batch\n",
        lo, hi);
  if (!o.output_prefix.empty())
    std::cout << fmt::format("# {} points, {} feasible; wrote {}.csv and {}.json\n", grid.size(), feasible,
                             o.output_prefix, o.output_prefix);
}

}  // namespace

void setup_sweep(CLI::App& app) {
  auto opts = std::make_shared<SweepOptions>();
  auto* cmd = app.add_subcommand("sweep", "Evaluate the cross product of scenario overrides (what-if sweep)");
  add_scenario_options(*cmd, opts->scn);
  add_output_options(*cmd, opts->out);
  cmd->add_option("--sweep", opts->axes,
                  "Key and values to sweep, e.g. --sweep parallel.pp=8,16,32 (repeatable; replaces a --set of the same "
                  "key, which may leave the base scenario invalid)")
      ->type_name("KEY=A,B,C")
      ->required();
  cmd->add_flag("--simulate", opts->simulate, "Run the simulator for every point instead of the analytic model");
  cmd->add_option("-j,--jobs", opts->jobs, "Worker threads (default: all cores)")->check(int_flag(0, kMaxThreads));
  cmd->add_option("-o,--output", opts->output_prefix,
                  "Write PREFIX.csv and PREFIX.json (all points; the JSON, written last, records the CSV's "
                  "size and hash)")
      ->transform(output_prefix_flag("a file prefix, e.g. out/sweep"));
  cmd->add_flag("--force", opts->force, "Replace existing output files");
  cmd->add_option("--top", opts->top, "Print the K best feasible points")->check(int_flag(1, int64_t{1} << 40));
  add_sim_budget_option(*cmd, opts->max_sim_ops);
  cmd->add_option("--by", opts->by,
                  "Metric to rank by for --top, by its key (step_time_s, tokens_per_s, memory_per_gpu_bytes, ...) or "
                  "the key without its unit (step_time)")
      ->capture_default_str();
  cmd->callback([opts] { run(*opts); });
}

}  // namespace mhcsim::cli
