// The runs: the pipeline simulator, sweeps over a grid, the layout search, the validation suite
// and the serving simulator. Each returns what its CLI verb's --json prints; the GIL is released while it runs.
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <filesystem>
#include <optional>
#include <string>
#include <variant>

#include "bindings.h"
#include "mhcsim/api/search.h"
#include "mhcsim/api/serve_arguments.h"
#include "mhcsim/api/simulate.h"
#include "mhcsim/api/validate.h"
#include "mhcsim/calib/attach.h"
#include "mhcsim/error.h"
#include "mhcsim/threads.h"
#include "mhcsim/scenarios/template.h"
#include "mhcsim/reports/document.h"
#include "mhcsim/sweep/feasibility.h"
#include "mhcsim/sweep/capacity_report.h"
#include "mhcsim/sweep/evaluators.h"
#include "mhcsim/sweep/sweep.h"

namespace mhcsim::python {

namespace {
void check_max_sim_ops(int64_t max_sim_ops) {
  if (max_sim_ops < 1 || max_sim_ops > sim::kMaxSimOps)
    throw InputError("max_sim_ops",
                     fmt::format("{} is out of range (expected integer in [1, {}])", max_sim_ops, sim::kMaxSimOps));
}

py::object simulate(const LoadedScenario& l, const std::optional<std::string>& trace, int64_t max_sim_ops, bool force) {
  check_max_sim_ops(max_sim_ops);
  nlohmann::json doc;
  {
    const LongCall call;
    const auto run =
        api::simulate(l.scenario, {path_argument(trace, "trace"), max_sim_ops, "trace", "max_sim_ops", force});
    doc = api::to_json(l.scenario, run);
  }
  warn_if_it_does_not_fit(l.scenario);
  return to_python(doc);
}

// {key: [values]} (or {key: 'a,b'} or {key: value}), 'key=a,b', or a list of 'key=a,b'.
std::vector<sweep::SweepAxis> sweep_axes(const py::object& grid) {
  std::vector<sweep::SweepAxis> axes;
  if (py::isinstance<py::dict>(grid)) {
    for (const auto& [key, values] : grid.cast<py::dict>()) {
      std::string text = py::str(key).cast<std::string>() + "=";
      if (py::isinstance<py::str>(values) || !py::isinstance<py::iterable>(values)) {
        text += flag_value("grid", values);  // 'a,b' as --sweep takes it, or one value
      } else {
        const char* sep = "";
        for (const auto& v : values) text += sep + flag_value("grid", v), sep = ",";
      }
      axes.push_back(sweep::parse_sweep_axis(text));
    }
  } else if (py::isinstance<py::str>(grid)) {
    axes.push_back(sweep::parse_sweep_axis(grid.cast<std::string>()));
  } else if (py::isinstance<py::iterable>(grid)) {
    for (const auto& text : grid) {
      if (!py::isinstance<py::str>(text))
        throw InputError("grid", fmt::format("a {} in the list (expected 'key=a,b,c' strings)", type_name(text)));
      axes.push_back(sweep::parse_sweep_axis(text.cast<std::string>()));
    }
  } else {
    throw InputError("grid",
                     fmt::format("a {} (expected {{key: [values]}}, 'key=a,b,c' or a list of them)", type_name(grid)));
  }
  if (axes.empty()) throw InputError("grid", "nothing to sweep (expected {key: [values]} with at least one key)");
  return axes;
}

py::object run_sweep(const LoadedScenario& l, const py::object& grid_spec, bool simulated, int jobs,
                     int64_t max_sim_ops) {
  if (jobs < 0 || jobs > kMaxThreads)
    throw InputError("jobs", fmt::format("{} is out of range (expected integer in [0, {}])", jobs, kMaxThreads));
  scenarios::ScenarioTemplate tpl(l.toml_text, l.file_name, l.overrides);
  const sweep::Grid grid(sweep_axes(grid_spec));
  auto evaluator = simulated ? sweep::simulated_evaluator(max_sim_ops) : sweep::analytic_evaluator();
  // Each point reads its own calibration profile (a sweep may sweep calibration.profile).
  evaluator.evaluate = [inner = evaluator.evaluate](const Scenario& s) {
    if (!s.calibration_path) return inner(s);
    Scenario calibrated = s;
    calib::attach_calibration(calibrated);
    return inner(calibrated);
  };
  nlohmann::json rows;
  {
    const LongCall call;
    const auto result = sweep::run_sweep(tpl, grid, evaluator, {jobs, {}});
    rows = sweep::to_table(result, {}, 0, result.points, "sweep").to_json();
  }
  return to_python(rows);
}

// The capacity-planning report (`mhcsim report -o DIR`): its files, and why the scenario does
// not fit its GPUs (None when it fits), which the CLI says with exit code 3 after writing.
py::object write_report(const LoadedScenario& l, const std::string& output, bool force, int64_t max_sim_ops) {
  check_max_sim_ops(max_sim_ops);
  reports::require_report_directory(output, force, "output");  // before the work, not after it
  std::string does_not_fit;
  {
    const LongCall call;
    scenarios::ScenarioTemplate tpl(l.toml_text, l.file_name, l.overrides);
    reports::write_report(sweep::capacity_report(l.scenario, tpl, max_sim_ops), output, force);
    does_not_fit = sweep::capacity(l.scenario).infeasible_reason;
  }
  const std::filesystem::path dir(output);
  py::dict out;
  out["html"] = (dir / "report.html").string();
  out["markdown"] = (dir / "report.md").string();
  out["figures"] = (dir / "figures").string();
  out["does_not_fit"] = does_not_fit.empty() ? py::object(py::none()) : py::str(does_not_fit);
  return out;
}

py::object validate_suite(const std::optional<std::string>& dir, const py::object& overrides,
                          const std::optional<std::string>& check) {
  const auto thresholds = check ? std::optional(validate::parse_thresholds(*check, "check")) : std::nullopt;
  const auto ovr = overrides_from(overrides);
  nlohmann::json doc;
  {
    const LongCall call;
    const auto v =
        api::run_validation(path_argument(dir, "dir"), ovr, [](Scenario& s) { calib::attach_calibration(s); });
    doc = api::to_json(v, thresholds);
  }
  return to_python(doc);
}

// Job sizes as --gpus reads them: None (the scenario's), N, [A, B, C] or "A-B".
std::string gpus_text(const py::object& gpus) {
  if (gpus.is_none()) return "";
  if (py::isinstance<py::str>(gpus)) return gpus.cast<std::string>();
  if (py::isinstance<py::int_>(gpus) && !py::isinstance<py::bool_>(gpus)) return py::str(gpus).cast<std::string>();
  if (py::isinstance<py::list>(gpus) || py::isinstance<py::tuple>(gpus)) {
    std::string text;
    for (const auto& g : gpus) {
      if (!py::isinstance<py::int_>(g) || py::isinstance<py::bool_>(g))
        throw InputError("gpus", fmt::format("{} is not a GPU count (expected N, [A, B, C] or 'A-B')",
                                             py::repr(g).cast<std::string>()));
      text += (text.empty() ? "" : ",") + py::str(g).cast<std::string>();
    }
    return text;
  }
  throw InputError("gpus", fmt::format("{} (expected N, [A, B, C] or 'A-B')", py::repr(gpus).cast<std::string>()));
}

py::object run_search(const LoadedScenario& l, const py::object& gpus, const std::string& objective, int64_t top,
                      const std::optional<int64_t>& global_batch, const std::optional<int64_t>& max_gpus,
                      double min_headroom_gib, const std::optional<double>& max_cost_usd, bool simulated, int jobs,
                      int64_t max_sim_ops) {
  api::SearchRequest r;
  r.names = api::ArgumentNames::Keywords;
  r.gpus = gpus_text(gpus);
  r.objective = objective;
  r.top = top;
  r.global_batch = global_batch.value_or(0);
  r.max_gpus = max_gpus.value_or(0);
  r.min_headroom_gib = min_headroom_gib;
  r.max_cost_usd = max_cost_usd.value_or(0);
  r.simulate = simulated;
  r.jobs = jobs;
  r.max_sim_ops = max_sim_ops;
  scenarios::ScenarioTemplate tpl(l.toml_text, l.file_name, l.overrides);
  nlohmann::json results;
  {
    const LongCall call;
    results = api::search(tpl, l.scenario, r)->results;  // one rank: always the answer
  }
  return to_python(results);
}

// The arguments as the CLI's text, read by the same parser (api/serve_arguments.h), so each
// has its flag's range and message, named by the keyword.
std::string text(double x) { return fmt::format("{}", x); }
std::string text(int64_t x) { return std::to_string(x); }
template <class T>
std::string text(const std::optional<T>& x) {
  return x ? text(*x) : std::string();
}

py::object serve(const LoadedScenario& l, const std::optional<double>& rate, const std::optional<int64_t>& requests,
                 const std::optional<std::string>& requests_file, const std::optional<int64_t>& input_tokens,
                 const std::optional<int64_t>& output_tokens, const std::optional<std::string>& lengths,
                 double prefix_hit, const std::optional<double>& slo_ttft_s, const std::optional<double>& slo_tpot_s,
                 int64_t replicas, const std::variant<int64_t, std::string>& prefill_replicas,
                 const std::optional<std::string>& prefill_scenario, const std::string& router, int64_t token_budget,
                 int64_t prefill_token_budget, int64_t max_batch, bool chunked_prefill,
                 const std::optional<int64_t>& seed, int64_t jobs, bool max_rate,
                 const std::optional<double>& target_rate, const std::optional<std::string>& trace, bool force) {
  api::ServeArguments a;
  a.names = api::ArgumentNames::Keywords;
  a.rate = text(rate);
  a.requests = text(requests);
  a.requests_file = path_argument(requests_file, "requests_file");
  a.input_tokens = text(input_tokens);
  a.output_tokens = text(output_tokens);
  a.lengths = lengths.value_or("");
  a.prefix_hit = text(prefix_hit);
  // None: no SLO, as the CLI without --slo-ttft; 0 is refused as --slo-ttft 0s is.
  a.slo_ttft = text(slo_ttft_s);
  a.slo_tpot = text(slo_tpot_s);
  a.replicas = text(replicas);
  const auto* count = std::get_if<int64_t>(&prefill_replicas);
  a.prefill_replicas = count ? text(*count) : std::get<std::string>(prefill_replicas);
  a.prefill_scenario = path_argument(prefill_scenario, "prefill_scenario");
  a.router = router;
  a.token_budget = text(token_budget);
  a.prefill_token_budget = text(prefill_token_budget);
  a.max_batch = text(max_batch);
  a.chunked_prefill = chunked_prefill;
  a.seed = text(seed);
  a.jobs = text(jobs);
  a.max_rate = max_rate;
  a.target_rate = text(target_rate);
  a.trace = path_argument(trace, "trace");
  a.force = force;
  const auto r = api::parse_serve_arguments(a);
  nlohmann::json doc;
  {
    const LongCall call;
    doc = api::to_json(l.scenario, r, api::serve(l.scenario, r));
  }
  return to_python(doc);
}
}  // namespace

void register_runs(py::module_& m) {
  m.def("simulate", &simulate, py::arg("scenario"), py::arg("trace") = py::none(),
        py::arg("max_sim_ops") = sim::kDefaultMaxSimOps, py::arg("force") = false,
        "Simulate one training step's pipeline schedule (`mhcsim simulate`): a dict with the summary, 'ranks' "
        "(rows) and 'versus_step'; trace: write a Chrome trace there (.gz: gzip); force: replace an existing trace "
        "mhcsim wrote.");
  m.def("sweep", &run_sweep, py::arg("scenario"), py::arg("grid"), py::arg("simulate") = false, py::arg("jobs") = 0,
        py::arg("max_sim_ops") = sim::kDefaultMaxSimOps,
        "Every point of a grid (`mhcsim sweep`): grid is {key: [values]} or ['key=a,b,c', ...]; one row per point "
        "with the axes, 'feasible', the metrics and 'reason'. jobs=0: all cores.");
  m.def("search", &run_search, py::arg("scenario"), py::arg("gpus") = py::none(), py::arg("objective") = "tokens_per_s",
        py::arg("top") = 10, py::arg("global_batch") = py::none(), py::arg("max_gpus") = py::none(),
        py::arg("min_headroom_gib") = 0.0, py::arg("max_cost_usd") = py::none(), py::arg("simulate") = false,
        py::arg("jobs") = 0, py::arg("max_sim_ops") = sim::kDefaultMaxSimOps,
        "The best parallel layouts of a training scenario at its global batch (`mhcsim search`): gpus is N, "
        "[A, B, C] or 'A-B' (default: the scenario's); objective tokens_per_s, cost_per_token, step_time or "
        "memory_headroom. A dict: 'top' (rows, best first, each with what separates it from the row above), "
        "'shipped' (the scenario's own layout), 'pruned' (points cut per reason) and 'pareto'. jobs=0: all cores.");
  m.def("report", &write_report, py::arg("scenario"), py::arg("output"), py::arg("force") = false,
        py::arg("max_sim_ops") = sim::kDefaultMaxSimOps,
        "Write the capacity-planning report (`mhcsim report -o output`): report.html, report.md and figures/ "
        "in the directory `output`; force: replace one mhcsim wrote. Returns the paths and 'does_not_fit' (why the "
        "scenario does not fit its GPUs, or None).");
  m.def("validate", &validate_suite, py::arg("dir") = py::none(), py::arg("overrides") = py::none(),
        py::arg("check") = py::none(),
        "Published training and serving runs against the model (`mhcsim validate`): rows, summary, held-out summary; "
        "check='MEDIAN,MAX' adds a 'check' entry.");
  m.def("serve", &serve, py::arg("scenario"), py::arg("rate") = py::none(), py::arg("requests") = py::none(),
        py::arg("requests_file") = py::none(), py::arg("input_tokens") = py::none(),
        py::arg("output_tokens") = py::none(), py::arg("lengths") = py::none(), py::arg("prefix_hit") = 0.0,
        py::arg("slo_ttft_s") = py::none(), py::arg("slo_tpot_s") = py::none(), py::arg("replicas") = 1,
        py::arg("prefill_replicas") = 0, py::arg("prefill_scenario") = py::none(), py::arg("router") = "least-loaded",
        py::arg("token_budget") = 2048, py::arg("prefill_token_budget") = 16384, py::arg("max_batch") = 0,
        py::arg("chunked_prefill") = true, py::arg("seed") = py::none(), py::arg("jobs") = 0,
        py::arg("max_rate") = false, py::arg("target_rate") = py::none(), py::arg("trace") = py::none(),
        py::arg("force") = false,
        "Serving under load (`mhcsim serve`): Poisson arrivals at `rate` requests/s (`requests` of them, None: "
        "1000; input_tokens/output_tokens their lengths, None: the scenario's context and 256; lengths "
        "'fixed' or 'exponential'; seed, None: 1; a request file has its own and refuses these) or a request file; "
        "'runs' holds one row per simulated rate (TTFT/TPOT/E2E percentiles, throughput, goodput, cost); "
        "max_rate=True searches the highest rate meeting the SLOs, target_rate=R sizes the service (replicas, "
        "GPUs, nodes) for R requests/s; prefill_replicas='auto' with a target picks the prefill:decode split "
        "needing the fewest nodes (on `jobs` threads, 0: all cores); force: replace an existing trace mhcsim wrote. "
        "Percentiles come from a sketch within 0.5%; without SLOs, slo_attainment and goodput are None.");
}

}  // namespace mhcsim::python
