// Measurements: a profiler trace against the simulated step (compare), and benchmark JSON
// fitted into a calibration profile (calibrate). Each returns what its CLI verb's --json prints.
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "mhcsim/api/compare.h"
#include "mhcsim/calib/calibrate.h"
#include "mhcsim/calib/profile_json.h"
#include "mhcsim/error.h"
#include "mhcsim/scenarios/load.h"

namespace mhcsim::python {

namespace {
py::object compare(const std::string& trace, const std::optional<LoadedScenario>& scenario,
                   const std::optional<std::string>& simulated, const std::optional<std::string>& patterns,
                   const std::string& steps, const std::optional<std::string>& window, int rank, bool list_kernels,
                   int64_t max_sim_ops, uint64_t max_trace_bytes, int64_t max_trace_events) {
  api::CompareRequest r;
  r.names = api::ArgumentNames::Keywords;
  r.trace = trace;
  r.simulated_trace = simulated.value_or("");
  r.patterns = patterns.value_or("");
  r.steps = steps;
  r.window = window.value_or("step");
  r.rank = rank;
  r.list_kernels = list_kernels;
  r.max_sim_ops = max_sim_ops;
  r.limits = {max_trace_bytes, max_trace_events};
  // None: the shipped default scenario, as the CLI without -s.
  const Scenario s = scenario ? scenario->scenario : scenarios::load_scenario(scenarios::default_scenario_path());
  nlohmann::json results;
  {
    const LongCall call;
    results = api::compare(r, [&] { return s; }).results;
  }
  return to_python(results);
}

// Fits the model's parameters to Google Benchmark JSON (`mhcsim calibrate --from`), writes the
// profile, and returns it as written; the fit's warnings are UserWarnings.
py::object calibrate(const py::object& bench_json, const std::string& output, const std::optional<std::string>& gpu,
                     bool force) {
  std::vector<std::string> paths;
  if (py::isinstance<py::str>(bench_json))
    paths.push_back(bench_json.cast<std::string>());
  else
    for (const auto& p : bench_json) paths.push_back(py::str(p).cast<std::string>());
  if (paths.empty()) throw InputError("bench_json", "no file given (expected a Google Benchmark JSON path or a list)");
  for (const auto& p : paths) (void)path_argument(p, "bench_json");  // "" is no file, as --from "" is not
  calib::require_profile_output(output, force, "output");
  calib::Calibration c;
  {
    const LongCall call;
    std::vector<calib::BenchFile> files;
    for (const auto& p : paths) files.push_back(calib::read_benchmark_file(p));
    c = calib::calibrate(files, {gpu.value_or("")});
    calib::write_calibration(output, c);
  }
  for (const auto& w : c.warnings)
    if (PyErr_WarnEx(PyExc_UserWarning, w.c_str(), 1) != 0) throw py::error_already_set();
  return to_python(calib::calibration_to_json(c));
}

}  // namespace

void register_measurements(py::module_& m) {
  m.def("compare", &compare, py::arg("trace"), py::arg("scenario") = py::none(), py::arg("simulated") = py::none(),
        py::arg("patterns") = py::none(), py::arg("steps") = "1", py::arg("window") = py::none(), py::arg("rank") = 0,
        py::arg("list_kernels") = false, py::arg("max_sim_ops") = sim::kDefaultMaxSimOps,
        py::arg("max_trace_bytes") = traces::TraceLimits{}.max_bytes,
        py::arg("max_trace_events") = traces::TraceLimits{}.max_events,
        "A measured Chrome trace (PyTorch profiler, optionally gzipped) against the scenario's simulated step "
        "(`mhcsim compare`), or against the trace `simulated`: 'rows' per figure (busy time per op class and "
        "stream, overlap, bubble, step) with 'error', and 'mean_abs_error' / 'max_abs_error'. steps: the steps "
        "the trace holds, or a fraction (1/120); window: step, micro-batch, chunk-pair or a fraction; "
        "list_kernels=True: {'kernels': every kernel with its class}.");
  m.def("calibrate", &calibrate, py::arg("bench_json"), py::arg("output"), py::arg("gpu") = py::none(),
        py::arg("force") = false,
        "Fit kernel bandwidths, collective alpha-beta and GEMM efficiency to Google Benchmark JSON (a path or a "
        "list; `mhcsim calibrate --from`), write the profile to `output` (force: replace one mhcsim wrote) and "
        "return it; load it with mhcsim.load(..., calibration=output). gpu: the catalog GPU when the driver's name "
        "matches none.");
}

}  // namespace mhcsim::python
