#include "common.h"

#include "mhcsim/calib/attach.h"
#include "mhcsim/scenarios/load.h"

namespace mhcsim::cli {

void add_output_options(CLI::App& cmd, OutputOptions& out) {
  cmd.add_flag("--json", out.json, "Machine-readable JSON on stdout instead of tables");
}

void add_scenario_options(CLI::App& cmd, ScenarioOptions& opts) {
  cmd.add_option("-s,--scenario", opts.scenario_path,
                 "Scenario TOML file (default: the shipped default scenario)");
  cmd.add_option("--set", opts.overrides,
                 "Override a scenario key, e.g. --set parallel.pp=8 (repeatable)")
      ->type_name("KEY=VALUE");
  cmd.add_option("--calibration", opts.calibration_path,
                 "Calibration profile JSON (overrides the scenario's calibration.profile)");
}

Scenario load_scenario(const ScenarioOptions& opts) {
  std::vector<scenarios::Override> overrides;
  for (const auto& text : opts.overrides) overrides.push_back(scenarios::parse_override(text));
  if (!opts.calibration_path.empty())
    overrides.push_back({"calibration.profile", '"' + opts.calibration_path + '"'});
  const auto path = opts.scenario_path.empty() ? scenarios::default_scenario_path()
                                               : std::filesystem::path(opts.scenario_path);
  Scenario s = scenarios::load_scenario(path, overrides);
  // A profile changes every prediction: say which one, and warn when it is from another GPU.
  for (const auto& w : calib::attach_calibration(s)) std::cerr << "mhcsim: warning: " << w << "\n";
  if (s.calibration) std::cerr << "mhcsim: " << calib::describe_calibration(*s.calibration) << "\n";
  return s;
}

void print_json(const nlohmann::json& doc) { std::cout << doc.dump(2) << "\n"; }

}  // namespace mhcsim::cli
