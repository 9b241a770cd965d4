// `mhcsim compare --trace measured.json[.gz] -s scenario.toml`: a measured Chrome trace
// (PyTorch profiler / Kineto) against the simulated step, per op class and per stream role:
// busy time, compute/communication overlap, bubble and step time, each with its error.
// `--simulated other.json` compares against a second trace instead (e.g. `simulate --trace`).
// `--window` / a fractional `--steps` compare a trace of part of a step (a chunk pair, a
// micro-batch) with the simulated step's share; `--list-kernels` lists the trace's kernels with
// the class each got.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>

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
  std::string steps = "1";
  std::string window;
  bool list_kernels = false;
  int rank = 0;
  int64_t max_sim_ops = sim::kDefaultMaxSimOps;
  traces::TraceLimits limits;
};

constexpr double kPercent = 100.0;  // traces::Comparison keeps errors in percent; JSON has fractions

nlohmann::json compare_inputs(const CompareOptions& o) {
  const auto or_null = [](const std::string& v) { return v.empty() ? nlohmann::json() : nlohmann::json(v); };
  return {{"trace", o.trace},
          {"simulated_trace", or_null(o.simulated_trace)},
          {"patterns", or_null(o.patterns)},
          {"steps", o.steps},
          {"window", or_null(o.window)},
          {"rank", o.rank},
          {"list_kernels", o.list_kernels}};
}

// The document's meta names the simulated scenario when there is one (not with --simulated or
// --list-kernels).
Output compare_output(const CompareOptions& o, const std::string& scenario_name) {
  if (scenario_name.empty()) return {true, {"compare", "", "", {}}};
  return {true, {"compare", scenario_name, scenario_file(o.scn).string(), o.scn.overrides}};
}

struct Side {
  std::string what;  // file or scenario name
  traces::KernelTimeline timeline;
  std::optional<sim::Layout> layout;  // the simulated schedule's, when simulated here
};

// "3", "0.5", "1/120": a positive number of steps (at most 1e6, at least 1e-6).
std::optional<double> parse_steps(const std::string& text) {
  auto number = [](std::string_view s) -> std::optional<double> {
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size() || !std::isfinite(v) || v <= 0) return std::nullopt;
    return v;
  };
  const auto slash = text.find('/');
  std::optional<double> v;
  if (slash == std::string::npos) {
    v = number(text);
  } else {
    const auto num = number(std::string_view(text).substr(0, slash));
    const auto den = number(std::string_view(text).substr(slash + 1));
    if (num && den) v = *num / *den;
  }
  if (!v || *v < 1e-6 || *v > 1e6) return std::nullopt;
  return v;
}

CLI::Validator steps_flag() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        return parse_steps(s) ? std::string()
                              : "'" + s +
                                    "' is not a number of steps (expected N, 0.25 or 1/120, "
                                    "between 1e-6 and 1e6)";
      },
      "STEPS");
}

Side simulated_side(const CompareOptions& o, const traces::ClassPatterns& patterns) {
  if (!o.simulated_trace.empty())
    return {o.simulated_trace, traces::read_kernel_timeline(o.simulated_trace, patterns, o.limits), std::nullopt};
  const Scenario s = load_scenario(o.scn);
  sim::check_op_budget(sim::schedule_spec_from(s.parallel), o.max_sim_ops);
  const auto simulation = sim::simulate(s);
  return {fmt::format("scenario {} ({})", s.name, s.path), traces::from_simulation(simulation),
          simulation.graph.layout};
}

// The share of a step the measured trace covers, and how it was said.
struct Window {
  double fraction = 1;  // < 1: part of a step
  double steps = 1;     // >= 1: whole steps
  std::string what;
};

Window window_of(const CompareOptions& o, const Side& simu) {
  Window w;
  const double steps = *parse_steps(o.steps);
  if (!o.window.empty() && o.steps != "1")
    throw InputError("--window", "give --window or --steps, not both (a fractional --steps is a window)");
  if (o.window.empty() || o.window == "step") {
    if (steps >= 1) {
      w.steps = steps;
      w.what = fmt::format("{} step(s) in the trace", o.steps);
    } else {
      w.fraction = steps;
      w.what = fmt::format("the trace covers {} of a step", o.steps);
    }
    return w;
  }
  if (o.window == "micro-batch" || o.window == "chunk-pair") {
    if (!simu.layout)
      throw InputError("--window", fmt::format("'{}' needs the simulated schedule (compare with a scenario, not "
                                               "--simulated; or give the fraction, e.g. --window 1/120)",
                                               o.window));
    const auto& l = *simu.layout;
    if (o.window == "micro-batch") {
      w.fraction = 1.0 / l.micro_batches;
      w.what = fmt::format("the trace covers one micro-batch (1/{} of a step)", l.micro_batches);
    } else {
      // Chunk visits per rank per step: every micro-batch visits `hops` chunks spread evenly over
      // the ranks; a chunk pair is one forward and one backward visit (DualPipe's F&B).
      const double visits = static_cast<double>(l.micro_batches) * l.hops / l.ranks;
      w.fraction = 1.0 / visits;
      w.what = fmt::format("the trace covers one chunk pair (1/{:g} of a step)", visits);
    }
    return w;
  }
  const auto f = parse_steps(o.window);
  if (!f || *f > 1)
    throw InputError("--window", fmt::format("'{}' is not a window (expected step, micro-batch, chunk-pair or a "
                                             "fraction of a step such as 1/120)",
                                             o.window));
  w.fraction = *f;
  w.what = fmt::format("the trace covers {} of a step", o.window);
  return w;
}

void print_kernels(const CompareOptions& o, const traces::KernelTimeline& t) {
  const auto rows = traces::kernel_list(t);
  reports::Table table(
      fmt::format("kernels of {}: {} distinct names, {} kernels", o.trace, t.names.size(), t.spans.size()),
      {{"op_class", "class"},
       {"direction", "direction"},
       {"count", "count"},
       {"total_seconds", "total (ms)", 3, 1e3},
       {"name", "name"}});
  // Text rows show a name's first 160 characters (templated kernels run to KBs); JSON all.
  constexpr size_t kShownChars = 160;
  for (const auto& r : rows)
    table.add_row({std::string(to_string(r.op_class)), std::string(to_string(r.direction)), r.count, r.total_seconds,
                   o.out.json || r.name.size() <= kShownChars ? r.name : r.name.substr(0, kShownChars) + "..."});
  const auto& s = t.sources;
  const std::string sources = fmt::format(
      "{} annotation ranges; kernels classed by annotation: {} by the launching thread's range, {} by the launching "
      "process's, {} by a CPU op, {} by a GPU range; {} kept their name's class (annotation of the other kind)",
      s.annotation_ranges, s.by_launch_thread, s.by_launch_process, s.by_cpu_op, s.by_gpu_range, s.kept_name_class);
  if (o.out.json) {
    compare_output(o, "").print_document(compare_inputs(o), {{"kernels", table.to_json()}, {"classes_from", sources}});
    return;
  }
  table.print_text(std::cout);
  std::cout << "# " << sources << "\n";
}

void print(const CompareOptions& o, const Side& meas, const Side& simu, const traces::Comparison& c, int32_t n,
           const Window& w) {
  reports::Table t(fmt::format("compare: measured {} vs simulated {}", meas.what, simu.what),
                   {{"id", "id"},
                    {"metric", "metric"},
                    {"measured_seconds", "measured (ms)", 3, 1e3},
                    {"simulated_seconds", "simulated (ms)", 3, 1e3},
                    {"error", "error (%)", 1, kPercent},
                    {"note", "note"}});
  for (const auto& r : c.rows)
    t.add_row({r.id, r.metric, r.measured_seconds, r.simulated_seconds,
               r.error_pct ? reports::Cell{*r.error_pct / kPercent} : reports::Cell{},
               r.minor ? reports::Cell{std::string("<1% of step, not ranked")} : reports::Cell{}});
  const auto& src = meas.timeline.sources;
  const std::string scope = fmt::format(
      "{} measured rank(s) vs simulated ranks {}..{} of {}; {} kernels measured ({} classed by annotations), {} "
      "host/annotation events ignored; {}",
      n, o.rank, o.rank + n - 1, simu.timeline.ranks, meas.timeline.spans.size(),
      src.by_launch_thread + src.by_launch_process + src.by_cpu_op + src.by_gpu_range, meas.timeline.ignored_events,
      w.what);
  if (o.out.json) {
    auto rows = t.to_json();
    for (auto& r : rows) r["minor"] = r.contains("note") && !r["note"].is_null();
    compare_output(o, o.simulated_trace.empty() ? simu.what : "")
        .print_document(compare_inputs(o), {{"measured", meas.what},
                                            {"simulated", simu.what},
                                            {"scope", scope},
                                            {"window_fraction", w.fraction},
                                            {"steps", w.steps},
                                            {"rows", rows},
                                            {"mean_abs_error", c.mean_abs_error_pct / kPercent},
                                            {"max_abs_error", c.max_abs_error_pct / kPercent},
                                            {"minor_rows", c.minor_rows}});
    return;
  }
  t.print_text(std::cout);
  std::cout << fmt::format(
      "# {}\n# mean |error| {:.1f} %, max |error| {:.1f} % over {} figures ({} under 1% of "
      "the step not ranked)\n",
      scope, c.mean_abs_error_pct, c.max_abs_error_pct, c.rows.size() - c.minor_rows, c.minor_rows);
}

void run(const CompareOptions& o) {
  const auto patterns = o.patterns.empty() ? traces::default_patterns() : traces::load_patterns(o.patterns);
  const Side meas{o.trace, traces::read_kernel_timeline(o.trace, patterns, o.limits), std::nullopt};
  if (meas.timeline.spans.empty())
    throw InputError("", "no GPU kernels in the trace (only ignored categories or no complete events)", {o.trace, 0});
  if (o.list_kernels) return print_kernels(o, meas.timeline);
  const Side simu = simulated_side(o, patterns);
  if (o.rank >= simu.timeline.ranks)
    throw InputError("--rank",
                     fmt::format("{} is out of range (the simulation has {} ranks)", o.rank, simu.timeline.ranks));
  const Window w = window_of(o, simu);
  const int32_t n = std::min(meas.timeline.ranks, simu.timeline.ranks - o.rank);
  const bool partial = w.fraction < 1;
  const auto measured = traces::measure(meas.timeline, 0, n, w.steps);
  auto simulated = traces::measure(simu.timeline, o.rank, n);
  if (partial) simulated = traces::window_of(simulated, w.fraction);
  print(o, meas, simu, traces::compare(measured, simulated, partial), n, w);
}

}  // namespace

void setup_compare(CLI::App& app) {
  auto opts = std::make_shared<CompareOptions>();
  auto* cmd =
      app.add_subcommand("compare", "Compare a measured Chrome trace (PyTorch profiler) with the simulated step");
  cmd->add_option("--trace", opts->trace, "Measured trace: Chrome trace event JSON, optionally gzipped")
      ->required()
      ->check(path_flag());
  cmd->add_option("--simulated", opts->simulated_trace, "Compare against this trace instead of simulating the scenario")
      ->check(path_flag());
  cmd->add_option("--patterns", opts->patterns,
                  "Kernel-name and annotation patterns per op class (TOML or JSON) over the defaults")
      ->check(path_flag());
  cmd->add_option("--steps", opts->steps,
                  "Training steps the measured trace holds (default 1; a fraction such as 1/120 or 0.25 is a "
                  "window: part of a step, compared with the simulated step's share)")
      ->check(steps_flag());
  cmd->add_option("--window", opts->window,
                  "What part of a step the trace covers: step, micro-batch, chunk-pair (one forward and one "
                  "backward chunk, DualPipe's F&B) or a fraction such as 1/120; the measured idle time is not "
                  "scaled up");
  cmd->add_flag("--list-kernels", opts->list_kernels,
                "List every kernel name of the trace with its count, total time, class and direction, and stop");
  cmd->add_option("--rank", opts->rank,
                  "Simulated pipeline rank of the trace's first GPU (default 0); later GPUs follow")
      ->check(int_flag(0, 4095));  // parallel.pp is at most 4096
  add_sim_budget_option(*cmd, opts->max_sim_ops);
  cmd->add_option("--max-trace-bytes", opts->limits.max_bytes,
                  "Largest trace accepted, in bytes of JSON after decompression (a bound on time)")
      ->check(CLI::Range(uint64_t{1}, std::numeric_limits<uint64_t>::max()))
      ->capture_default_str();
  cmd->add_option("--max-trace-events", opts->limits.max_events,
                  "Most traceEvents entries accepted (a bound on memory: 32 bytes per kernel)")
      ->check(CLI::Range(int64_t{1}, std::numeric_limits<int64_t>::max()))
      ->capture_default_str();
  add_scenario_options(*cmd, opts->scn);
  add_output_options(*cmd, opts->out);
  cmd->callback([opts] { run(*opts); });
}

}  // namespace mhcsim::cli
