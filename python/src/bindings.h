#pragma once
// What the binding files share: the Scenario the module hands out, JSON to Python, and one
// registration function per file.
#include <pybind11/pybind11.h>
#include <signal.h>

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mhcsim/scenarios/load.h"
#include "mhcsim/specs.h"

namespace mhcsim::python {

namespace py = pybind11;

// A loaded scenario and what it was loaded from, so a sweep can instantiate it again with
// other values (scenarios::ScenarioTemplate) and with_overrides can reload it.
struct LoadedScenario {
  std::string toml_text;
  std::string file_name;  // what errors name: the path, or "<string>"
  std::vector<scenarios::Override> overrides;
  Scenario scenario;  // validated, calibration attached
};

// A Python value as the text after --set key= or in a --sweep list: booleans as true/false, the
// rest as Python writes them (strings as they are); None is an InputError naming `key`.
std::string flag_value(const std::string& key, const py::handle& value);
// The name of a value's Python type ("int"), for messages.
std::string type_name(const py::handle& value);

// An optional path argument: None is none (""); "" is an InputError naming `name`, as the CLI's
// empty flag is.
std::string path_argument(const std::optional<std::string>& path, const char* name);

// `key=value` strings (as --set takes them), or a dict {key: value}; None: none.
std::vector<scenarios::Override> overrides_from(const py::object& overrides);
// Reads scenario.calibration_path into scenario.calibration, each warning a Python
// UserWarning (the CLI prints them on stderr).
void attach_calibration(Scenario& s);
// A UserWarning "does not fit: <why>" where the configuration does not fit its GPUs: what the
// CLI's exit code 3 says, for step, memory and simulate, whose results are still returned.
void warn_if_it_does_not_fit(const Scenario& s);

// Long work with the GIL released and Ctrl-C stopping it: on the main thread, over Python's
// default handler, SIGINT requests an interrupt (interrupt.h) until the call returns, which the
// loops turn into Interrupted; the SIGINT is then passed on to Python's handler, which raises
// KeyboardInterrupt at once (Interrupted) or at the next bytecode (the work had finished).
class LongCall {
 public:
  LongCall();
  ~LongCall();
  LongCall(const LongCall&) = delete;
  LongCall& operator=(const LongCall&) = delete;

 private:
  struct sigaction previous_ {};
  bool installed_ = false;
  py::gil_scoped_release release_;  // last: the handler is in place before the GIL goes
};

// Objects, arrays, numbers, strings, booleans and null as dict, list, int/float, str, bool, None.
py::object to_python(const nlohmann::json& j);

void register_errors(py::module_& m);
void register_scenario(py::module_& m);
void register_estimates(py::module_& m);
void register_runs(py::module_& m);
void register_measurements(py::module_& m);

}  // namespace mhcsim::python
