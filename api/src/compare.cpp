#include "mhcsim/api/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include "mhcsim/error.h"
#include "mhcsim/sim/simulate.h"
#include "mhcsim/traces/compare.h"
#include "mhcsim/traces/kernel_timeline.h"

namespace mhcsim::api {

namespace {
constexpr ArgumentName kTrace{"--trace", "trace"}, kSimulated{"--simulated", "simulated"},
    kPatterns{"--patterns", "patterns"}, kSteps{"--steps", "steps"}, kWindow{"--window", "window"},
    kRank{"--rank", "rank"}, kMaxSimOps{"--max-sim-ops", "max_sim_ops"},
    kMaxTraceBytes{"--max-trace-bytes", "max_trace_bytes"}, kMaxTraceEvents{"--max-trace-events", "max_trace_events"};
constexpr ArgumentName kAll[] = {kTrace, kSimulated, kPatterns,      kSteps,         kWindow,
                                 kRank,  kMaxSimOps, kMaxTraceBytes, kMaxTraceEvents};

constexpr double kPercent = 100.0;  // traces::Comparison keeps errors in percent; JSON has fractions

struct Side {
  std::string what;  // file or scenario name
  traces::KernelTimeline timeline;
  std::optional<sim::Layout> layout;  // the simulated schedule's, when simulated here
};

// The share of a step the measured trace covers, and how it was said.
struct Window {
  double fraction = 1;  // < 1: part of a step
  double steps = 1;     // >= 1: whole steps
  std::string what;
};

Window window_of(const CompareRequest& r, const Side& simu) {
  const auto name = [&](const ArgumentName& a) { return a.in(r.names); };
  Window w;
  const auto steps = parse_steps(r.steps);
  if (!steps)
    throw InputError(name(kSteps), fmt::format("'{}' is not a number of steps (expected N, 0.25 or 1/120, between "
                                               "1e-6 and 1e6)",
                                               r.steps));
  if (r.window != "step" && r.steps != "1")
    throw InputError(name(kWindow), fmt::format("give {} or {}, not both (a fractional {} is a window)", name(kWindow),
                                                name(kSteps), name(kSteps)));
  if (r.window == "step") {
    if (*steps >= 1) {
      w.steps = *steps;
      w.what = fmt::format("{} step(s) in the trace", r.steps);
    } else {
      w.fraction = *steps;
      w.what = fmt::format("the trace covers {} of a step", r.steps);
    }
    return w;
  }
  if (r.window == "micro-batch" || r.window == "chunk-pair") {
    if (!simu.layout)
      throw InputError(name(kWindow), fmt::format("'{}' needs the simulated schedule (compare with a scenario, not "
                                                  "{}; or give the fraction, e.g. 1/120)",
                                                  r.window, name(kSimulated)));
    const auto& l = *simu.layout;
    if (r.window == "micro-batch") {
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
  const auto f = parse_steps(r.window);
  if (!f || *f > 1)
    throw InputError(name(kWindow), fmt::format("'{}' is not a window (expected step, micro-batch, chunk-pair or a "
                                                "fraction of a step such as 1/120)",
                                                r.window));
  w.fraction = *f;
  w.what = fmt::format("the trace covers {} of a step", r.window);
  return w;
}

nlohmann::json compare_inputs(const CompareRequest& r) {
  const auto or_null = [](const std::string& v) { return v.empty() ? nlohmann::json() : nlohmann::json(v); };
  return {{"trace", r.trace},
          {"simulated_trace", or_null(r.simulated_trace)},
          {"patterns", or_null(r.patterns)},
          {"steps", r.steps},
          {"window", r.window},
          {"rank", r.rank},
          {"list_kernels", r.list_kernels}};
}

// The trace's kernels with the class each got.
void list_kernels(const CompareRequest& r, const traces::KernelTimeline& t, CompareAnswer& a) {
  const auto rows = traces::kernel_list(t);
  // The text shows a name's first 160 characters (templated kernels run to KBs); the JSON all.
  constexpr size_t kShownChars = 160;
  const auto table = [&](bool shown) {
    reports::Table k(
        fmt::format("kernels of {}: {} distinct names, {} kernels", r.trace, t.names.size(), t.spans.size()),
        {{"op_class", "class"},
         {"direction", "direction"},
         {"count", "count"},
         {"total_s", "total (ms)", 3, 1e3},
         {"name", "name"}});
    for (const auto& row : rows)
      k.add_row({std::string(to_string(row.op_class)), std::string(to_string(row.direction)), row.count,
                 row.total_seconds,
                 !shown || row.name.size() <= kShownChars ? row.name : row.name.substr(0, kShownChars) + "..."});
    return k;
  };
  a.table = table(true);
  const auto& s = t.sources;
  const std::string sources = fmt::format(
      "{} annotation ranges; kernels classed by annotation: {} by the launching thread's range, {} by the launching "
      "process's, {} by a CPU op, {} by a GPU range; {} kept their name's class (annotation of the other kind)",
      s.annotation_ranges, s.by_launch_thread, s.by_launch_process, s.by_cpu_op, s.by_gpu_range, s.kept_name_class);
  a.notes = {sources};
  a.results = {{"kernels", table(false).to_json()}, {"classes_from", sources}};
}

CompareAnswer compare_named(const CompareRequest& r, const std::function<Scenario()>& scenario) {
  const auto name = [&](const ArgumentName& x) { return x.in(r.names); };
  if (r.rank < 0 || r.rank > kMaxCompareRank)
    throw InputError(name(kRank),
                     fmt::format("{} is out of range (expected integer in [0, {}])", r.rank, kMaxCompareRank));
  if (r.max_sim_ops < 1 || r.max_sim_ops > sim::kMaxSimOps)
    throw InputError(name(kMaxSimOps),
                     fmt::format("{} is out of range (expected integer in [1, {}])", r.max_sim_ops, sim::kMaxSimOps));
  if (r.limits.max_bytes < 1) throw InputError(name(kMaxTraceBytes), "must be >= 1");
  if (r.limits.max_events < 1) throw InputError(name(kMaxTraceEvents), "must be >= 1");
  CompareAnswer a;
  a.inputs = compare_inputs(r);
  const auto patterns = r.patterns.empty() ? traces::default_patterns() : traces::load_patterns(r.patterns);
  const Side meas{r.trace, traces::read_kernel_timeline(r.trace, patterns, r.limits), std::nullopt};
  if (meas.timeline.spans.empty())
    throw InputError("", "no GPU kernels in the trace (only ignored categories or no complete events)", {r.trace, 0});
  if (r.list_kernels) {
    list_kernels(r, meas.timeline, a);
    return a;
  }
  Side simu;
  if (!r.simulated_trace.empty()) {
    simu = {r.simulated_trace, traces::read_kernel_timeline(r.simulated_trace, patterns, r.limits), std::nullopt};
  } else {
    a.scenario = scenario();
    const Scenario& s = *a.scenario;
    sim::check_op_budget(s, r.max_sim_ops);
    const auto simulation = sim::simulate(s);
    simu = {fmt::format("scenario {} ({})", s.name, s.path), traces::from_simulation(simulation),
            simulation.graph.layout};
  }
  if (r.rank >= simu.timeline.ranks)
    throw InputError(name(kRank),
                     fmt::format("{} is out of range (the simulation has {} ranks)", r.rank, simu.timeline.ranks));
  const Window w = window_of(r, simu);
  const int32_t n = std::min(meas.timeline.ranks, simu.timeline.ranks - r.rank);
  const bool partial = w.fraction < 1;
  const auto measured = traces::measure(meas.timeline, 0, n, w.steps);
  // Kernels of zero duration only: every row would read 0 measured, and a 0 % error over
  // nothing must not read as a match.
  if (measured.step_seconds <= 0) throw InputError("", "its kernels last 0 s in all: no time to compare", {r.trace, 0});
  auto simulated = traces::measure(simu.timeline, r.rank, n);
  if (partial) simulated = traces::window_of(simulated, w.fraction);
  const auto c = traces::compare(measured, simulated, partial);

  a.table = reports::Table(fmt::format("compare: measured {} vs simulated {}", meas.what, simu.what),
                           {{"id", "id"},
                            {"metric", "metric"},
                            {"measured_s", "measured (ms)", 3, 1e3},
                            {"simulated_s", "simulated (ms)", 3, 1e3},
                            {"error", "error (%)", 1, kPercent},
                            {"note", "note"}});
  for (const auto& row : c.rows)
    a.table.add_row({row.id, row.metric, row.measured_seconds, row.simulated_seconds,
                     row.error_pct ? reports::Cell{*row.error_pct / kPercent} : reports::Cell{},
                     row.minor ? reports::Cell{std::string("<1% of step, not ranked")} : reports::Cell{}});
  const auto& src = meas.timeline.sources;
  const std::string scope = fmt::format(
      "{} measured rank(s){} vs simulated ranks {}..{} of {}; {} kernels measured ({} classed by annotations), {} "
      "host/annotation events ignored; {}",
      n,
      meas.timeline.ranks > n ? fmt::format(" (of the trace's {}: the simulation has no rank past {})",
                                            meas.timeline.ranks, simu.timeline.ranks - 1)
                              : std::string(),
      r.rank, r.rank + n - 1, simu.timeline.ranks, meas.timeline.spans.size(),
      src.by_launch_thread + src.by_launch_process + src.by_cpu_op + src.by_gpu_range, meas.timeline.ignored_events,
      w.what);
  a.notes = {scope, fmt::format("mean |error| {:.1f} %, max |error| {:.1f} % over {} figures ({} under 1% of the step "
                                "not ranked)",
                                c.mean_abs_error_pct, c.max_abs_error_pct, c.compared_rows, c.minor_rows)};
  auto rows = a.table.to_json();
  for (auto& row : rows) row["minor"] = row.contains("note") && !row["note"].is_null();
  a.results = {{"measured", meas.what},
               {"simulated", simu.what},
               {"scope", scope},
               {"window_fraction", w.fraction},
               {"steps", w.steps},
               {"rows", rows},
               {"mean_abs_error", c.mean_abs_error_pct / kPercent},
               {"max_abs_error", c.max_abs_error_pct / kPercent},
               {"compared_rows", c.compared_rows},
               {"minor_rows", c.minor_rows}};
  return a;
}
}  // namespace

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

CompareAnswer compare(const CompareRequest& request, const std::function<Scenario()>& scenario) {
  return with_named_errors(request.names, kAll, [&] { return compare_named(request, scenario); });
}

}  // namespace mhcsim::api
