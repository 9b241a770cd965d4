// Scenarios: load a file (or the shipped default) or a TOML string, with the overrides the
// CLI's --set takes, validated like the file (errors raise mhcsim.Error).
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <optional>

#include "bindings.h"
#include "mhcsim/api/hw.h"
#include "mhcsim/calib/attach.h"
#include "mhcsim/error.h"
#include "mhcsim/sweep/feasibility.h"

namespace mhcsim::python {

std::string flag_value(const std::string& key, const py::handle& value) {
  if (value.is_none()) throw InputError(key, "None is not a value (expected a number, a boolean or a string)");
  if (py::isinstance<py::bool_>(value)) return value.cast<bool>() ? "true" : "false";
  return py::str(value).cast<std::string>();
}

std::string type_name(const py::handle& value) {
  return py::str(py::type::of(value).attr("__name__")).cast<std::string>();
}

std::string path_argument(const std::optional<std::string>& path, const char* name) {
  if (path && path->empty()) throw InputError(name, "empty path (expected a file name, or None)");
  return path.value_or("");
}

namespace {

LoadedScenario load_text(std::string text, std::string file_name, std::vector<scenarios::Override> overrides,
                         const std::optional<std::string>& calibration) {
  if (calibration) overrides.push_back({"calibration.profile", '"' + path_argument(calibration, "calibration") + '"'});
  Scenario s = scenarios::load_scenario_from_string(text, file_name, overrides);
  attach_calibration(s);
  return {std::move(text), std::move(file_name), std::move(overrides), std::move(s)};
}

std::vector<std::string> override_texts(const LoadedScenario& l) {
  std::vector<std::string> texts;
  for (const auto& o : l.overrides) texts.push_back(o.key + "=" + o.value);
  return texts;
}
}  // namespace

std::vector<scenarios::Override> overrides_from(const py::object& overrides) {
  std::vector<scenarios::Override> out;
  if (overrides.is_none()) return out;
  if (py::isinstance<py::dict>(overrides)) {
    for (const auto& [key, value] : overrides.cast<py::dict>()) {
      const auto name = py::str(key).cast<std::string>();
      out.push_back(scenarios::parse_override(name + "=" + flag_value(name, value)));
    }
    return out;
  }
  if (py::isinstance<py::str>(overrides)) return {scenarios::parse_override(overrides.cast<std::string>())};
  if (!py::isinstance<py::iterable>(overrides))
    throw InputError("overrides", fmt::format("a {} (expected a dict {{key: value}}, a 'key=value' string or a list "
                                              "of them)",
                                              type_name(overrides)));
  for (const auto& text : overrides) out.push_back(scenarios::parse_override(py::str(text).cast<std::string>()));
  return out;
}

void attach_calibration(Scenario& s) {
  for (const auto& w : calib::attach_calibration(s))
    if (PyErr_WarnEx(PyExc_UserWarning, w.c_str(), 1) != 0) throw py::error_already_set();
}

void warn_if_it_does_not_fit(const Scenario& s) {
  if (const auto why = sweep::capacity(s).infeasible_reason; !why.empty())
    if (PyErr_WarnEx(PyExc_UserWarning, ("does not fit: " + why).c_str(), 1) != 0) throw py::error_already_set();
}

void register_scenario(py::module_& m) {
  py::class_<LoadedScenario>(m, "Scenario",
                             "A validated scenario (mhcsim.load / mhcsim.loads); pass it to the estimate functions.")
      .def_property_readonly("name", [](const LoadedScenario& l) { return l.scenario.name; })
      .def_property_readonly(
          "file", [](const LoadedScenario& l) { return l.file_name; },
          "the file it was read from, or the name given to loads()")
      .def_property_readonly(
          "mode", [](const LoadedScenario& l) { return std::string(to_string(l.scenario.workload.mode)); },
          "'train' or 'serve'")
      .def_property_readonly("overrides", override_texts, "the overrides applied, as key=value")
      .def_property_readonly(
          "toml", [](const LoadedScenario& l) { return l.toml_text; }, "the TOML text before overrides")
      .def(
          "with_overrides",
          [](const LoadedScenario& l, const py::object& overrides) {
            auto all = l.overrides;
            for (auto& o : overrides_from(overrides)) all.push_back(std::move(o));
            return load_text(l.toml_text, l.file_name, std::move(all), std::nullopt);
          },
          py::arg("overrides"), "The same scenario with more overrides (later ones win).")
      .def("__repr__", [](const LoadedScenario& l) {
        return fmt::format("<mhcsim.Scenario {:?} from {:?}, {} override(s)>", l.scenario.name, l.file_name,
                           l.overrides.size());
      });

  m.def(
      "load",
      [](const std::optional<std::string>& path, const py::object& overrides,
         const std::optional<std::string>& calibration) {
        const std::filesystem::path file =
            path ? std::filesystem::path(path_argument(path, "path")) : scenarios::default_scenario_path();
        return load_text(scenarios::read_scenario_file(file), file.string(), overrides_from(overrides), calibration);
      },
      py::arg("path") = py::none(), py::arg("overrides") = py::none(), py::arg("calibration") = py::none(),
      "Load a scenario TOML file (default: the shipped default scenario) with overrides: a list of 'key=value' "
      "strings as --set takes them, or a dict {key: value}; calibration: a profile JSON (as --calibration).");
  m.def(
      "loads",
      [](const std::string& toml, const py::object& overrides, const std::string& name,
         const std::optional<std::string>& calibration) {
        return load_text(toml, name, overrides_from(overrides), calibration);
      },
      py::arg("toml"), py::arg("overrides") = py::none(), py::arg("name") = "<string>",
      py::arg("calibration") = py::none(), "Load a scenario from TOML text; `name` is the file name errors give.");
  m.def(
      "hardware",
      [](const std::optional<std::string>& hardware_file) {
        return to_python(api::catalog_rows(scenarios::catalog_entries(path_argument(hardware_file, "hardware_file"))));
      },
      py::arg("hardware_file") = py::none(),
      "The hardware catalog (`mhcsim hw`): one row per GPU with its peaks, memory, links, server and price, each "
      "with its source; hardware_file: a TOML of your own GPUs added to the shipped ones.");
  m.def("default_scenario_path", [] { return scenarios::default_scenario_path().string(); });
  m.def(
      "data_dir", [] { return scenarios::data_dir().string(); }, "The shipped scenarios (MHCSIM_DATA_DIR overrides).");
}

}  // namespace mhcsim::python
