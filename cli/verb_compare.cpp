// `mhcsim compare --trace measured.json[.gz] -s scenario.toml`: a measured Chrome trace
// (PyTorch profiler / Kineto) against the simulated step, per op class and per stream role:
// busy time, compute/communication overlap, bubble and step time, each with its error.
// `--simulated other.json` compares against a second trace instead (e.g. `simulate --trace`).
#include <fmt/format.h>

#include <iostream>
#include <limits>
#include <memory>

#include "common.h"
#include "mhcsim/error.h"
#include "mhcsim/reports/table.h"
#include "mhcsim/sim/schedule.h"
#include "mhcsim/sim/simulate.h"
#include "mhcsim/traces/compare.h"
#include "verbs.h"

namespace mhcsim::cli {
namespace {

struct CompareOptions {
  ScenarioOptions scn;
  OutputOptions out;
  std::string trace;
  std::string simulated_trace;
  std::string patterns;
  double steps = 1;
  int rank = 0;
  int64_t max_sim_ops = sim::kDefaultMaxSimOps;
  traces::TraceLimits limits;
};

struct Side {
  std::string what;  // file or scenario name
  traces::KernelTimeline timeline;
};

Side simulated_side(const CompareOptions& o, const traces::ClassPatterns& patterns) {
  if (!o.simulated_trace.empty())
    return {o.simulated_trace, traces::read_kernel_timeline(o.simulated_trace, patterns, o.limits)};
  const Scenario s = load_scenario(o.scn);
  sim::check_op_budget(sim::schedule_spec_from(s.parallel), o.max_sim_ops);
  return {fmt::format("scenario {} ({})", s.name, s.path), traces::from_simulation(sim::simulate(s))};
}

void print(const CompareOptions& o, const Side& meas, const Side& simu, const traces::Comparison& c, int32_t n) {
  reports::Table t(fmt::format("compare: measured {} vs simulated {}", meas.what, simu.what),
                   {{"metric", "metric"},
                    {"measured_seconds", "measured (ms)", 3, 1e3},
                    {"simulated_seconds", "simulated (ms)", 3, 1e3},
                    {"error_pct", "error (%)", 1}});
  for (const auto& r : c.rows)
    t.add_row({r.metric, r.measured_seconds, r.simulated_seconds,
               r.error_pct ? reports::Cell{*r.error_pct} : reports::Cell{}});
  const std::string scope = fmt::format("{} measured rank(s) vs simulated ranks {}..{} of {}; {} kernels measured, "
                                        "{} host/annotation events ignored; {} step(s) in the trace",
                                        n, o.rank, o.rank + n - 1, simu.timeline.ranks, meas.timeline.spans.size(),
                                        meas.timeline.ignored_events, o.steps);
  if (o.out.json) {
    print_json({{"measured", meas.what}, {"simulated", simu.what}, {"scope", scope}, {"rows", t.to_json()},
                {"mean_abs_error_pct", c.mean_abs_error_pct}, {"max_abs_error_pct", c.max_abs_error_pct}});
    return;
  }
  t.print_text(std::cout);
  std::cout << fmt::format("# {}\n# mean |error| {:.1f} %, max |error| {:.1f} % over {} figures\n", scope,
                           c.mean_abs_error_pct, c.max_abs_error_pct, c.rows.size());
}

void run(const CompareOptions& o) {
  const auto patterns = o.patterns.empty() ? traces::default_patterns() : traces::load_patterns(o.patterns);
  const Side meas{o.trace, traces::read_kernel_timeline(o.trace, patterns, o.limits)};
  if (meas.timeline.spans.empty())
    throw InputError("", "no GPU kernels in the trace (only ignored categories or no complete events)", {o.trace, 0});
  const Side simu = simulated_side(o, patterns);
  if (o.rank >= simu.timeline.ranks)
    throw InputError("--rank", fmt::format("{} is out of range (the simulation has {} ranks)", o.rank, simu.timeline.ranks));
  const int32_t n = std::min(meas.timeline.ranks, simu.timeline.ranks - o.rank);
  const auto c = traces::compare(traces::measure(meas.timeline, 0, n, o.steps),
                                 traces::measure(simu.timeline, o.rank, n));
  print(o, meas, simu, c, n);
}

}  // namespace

void setup_compare(CLI::App& app) {
  auto opts = std::make_shared<CompareOptions>();
  auto* cmd = app.add_subcommand("compare", "Compare a measured Chrome trace (PyTorch profiler) with the simulated step");
  cmd->add_option("--trace", opts->trace, "Measured trace: Chrome trace event JSON, optionally gzipped")
      ->required()
      ->check(path_flag());
  cmd->add_option("--simulated", opts->simulated_trace,
                  "Compare against this trace instead of simulating the scenario")
      ->check(path_flag());
  cmd->add_option("--patterns", opts->patterns,
                  "Kernel-name patterns per op class (TOML or JSON) over the defaults")
      ->check(path_flag());
  // A trace holds whole steps or a part of one; a millionth of a step is a typo, not a profile.
  cmd->add_option("--steps", opts->steps, "Training steps the measured trace holds (default 1)")
      ->check(number_flag(1e-3, 1e6));
  cmd->add_option("--rank", opts->rank,
                  "Simulated pipeline rank of the trace's first GPU (default 0); later GPUs follow")
      ->check(int_flag(0, 4095));  // parallel.pp is at most 4096
  add_sim_budget_option(*cmd, opts->max_sim_ops);
  cmd->add_option("--max-trace-bytes", opts->limits.max_bytes,
                  "Largest trace accepted, in bytes of JSON after decompression (a bound on time)")
      ->check(CLI::Range(uint64_t{1}, std::numeric_limits<uint64_t>::max()))
      ->capture_default_str();
  cmd->add_option("--max-trace-events", opts->limits.max_events,
                  "Most traceEvents entries accepted (a bound on memory: 24 bytes per kernel)")
      ->check(CLI::Range(int64_t{1}, std::numeric_limits<int64_t>::max()))
      ->capture_default_str();
  add_scenario_options(*cmd, opts->scn);
  add_output_options(*cmd, opts->out);
  cmd->callback([opts] { run(*opts); });
}

}  // namespace mhcsim::cli
