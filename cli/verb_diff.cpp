// `mhcsim diff A.toml B.toml`: two scenarios side by side: the keys that differ, then every
// figure of `step` and `memory` for A and B with the relative change (api/diff.h).
#include <memory>

#include "common.h"
#include "mhcsim/api/diff.h"
#include "verbs.h"

namespace mhcsim::cli {

void setup_diff(CLI::App& app) {
  struct Options {
    ScenarioOptions a, b;  // the same --set / --hardware / --calibration apply to both
    OutputOptions out;
  };
  auto opts = std::make_shared<Options>();
  auto* cmd = app.add_subcommand("diff", "Compare two scenarios: the keys that differ and each step and memory figure");
  cmd->add_option("A", opts->a.scenario_path, "First scenario TOML file")->required()->check(path_flag());
  cmd->add_option("B", opts->b.scenario_path, "Second scenario TOML file")->required()->check(path_flag());
  cmd->add_option("--set", opts->a.overrides, "Override a key in both scenarios, e.g. --set parallel.pp=8 (repeatable)")
      ->type_name("KEY=VALUE");
  cmd->add_option("--calibration", opts->a.calibration_path, "Calibration profile JSON for both scenarios")
      ->check(path_flag());
  add_hardware_option(*cmd, opts->a.hardware_path);
  add_output_options(*cmd, opts->out);
  cmd->callback([opts] {
    ScenarioOptions& b = opts->b;
    b.overrides = opts->a.overrides;
    b.calibration_path = opts->a.calibration_path;
    b.hardware_path = opts->a.hardware_path;
    const Scenario sa = load_scenario(opts->a), sb = load_scenario(b);
    const api::ScenarioDiff d = api::diff_scenarios(sa, sb);
    if (opts->out.json) {
      nlohmann::json inputs{
          {"a", {{"scenario", sa.name}, {"scenario_file", sa.path}, {"inputs", api::scenario_inputs(sa)}}},
          {"b", {{"scenario", sb.name}, {"scenario_file", sb.path}, {"inputs", api::scenario_inputs(sb)}}}};
      return Output{true, {"diff", "", "", opts->a.overrides}}.print_document(std::move(inputs), api::to_json(d));
    }
    std::cout << "# A: " << sa.name << " (" << sa.path << ")\n# B: " << sb.name << " (" << sb.path << ")\n";
    api::key_changes_table(d).print_text(std::cout);
    std::cout << "\n";
    api::figure_changes_table(d).print_text(std::cout);
    if (!d.comparable)
      std::cout << "# A and B differ in workload.mode or phase: a training step and a serving iteration are shown "
                   "side by side, with no change\n";
  });
}

}  // namespace mhcsim::cli
