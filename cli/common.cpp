#include "common.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <memory>
#include <set>
#include <type_traits>

#include "mhcsim/calib/attach.h"
#include "mhcsim/error.h"
#include "mhcsim/scenarios/load.h"
#include "mhcsim/sim/schedule.h"
#include "mhcsim/sweep/feasibility.h"

namespace mhcsim::cli {

CLI::Validator path_flag(const char* expected) {
  return {
      [expected](std::string& text) { return text.empty() ? fmt::format("empty path (expected {})", expected) : ""; },
      ""};
}

CLI::Validator output_prefix_flag(const char* expected) {
  return {[expected](std::string& text) -> std::string {
            for (const std::string_view ext : {".csv", ".json"})
              if (text.size() > ext.size() && text.ends_with(ext)) text.resize(text.size() - ext.size());
            return text.empty() ? fmt::format("empty path (expected {})", expected) : "";
          },
          ""};
}

namespace {
// A flag that must parse whole as a T in [lo, hi]; `kind` and `a_kind` name it in messages
// ("integer", "an integer"). Numbers must also be finite; an overflow, or a double's underflow
// (1e-400, which from_chars flags and returns as 0), is out of range.
template <class T>
CLI::Validator range_flag(T lo, T hi, const char* kind, const char* a_kind) {
  return {[lo, hi, kind, a_kind](std::string& text) -> std::string {
            const std::string expected = fmt::format("{} in [{}, {}]", kind, lo, hi);
            T v = 0;
            const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
            if (end != text.data() + text.size() || (ec != std::errc() && ec != std::errc::result_out_of_range))
              return fmt::format("{:?} is not {} (expected {})", text, a_kind, expected);
            if constexpr (std::is_floating_point_v<T>) {
              if (!std::isfinite(v)) return fmt::format("{} is not a finite number (expected {})", text, expected);
            }
            if (ec != std::errc() || v < lo || v > hi)
              return fmt::format("{} is out of range (expected {})", text, expected);
            return "";
          },
          ""};
}
}  // namespace

CLI::Validator int_flag(int64_t lo, int64_t hi) { return range_flag(lo, hi, "integer", "an integer"); }

CLI::Validator number_flag(double lo, double hi) { return range_flag(lo, hi, "number", "a number"); }

CLI::Validator key_flag(const std::string& key) {
  return {[key](std::string& text) { return scenarios::key_value_problem(key, text); }, ""};
}

void add_sim_budget_option(CLI::App& cmd, int64_t& max_sim_ops) {
  cmd.add_option("--max-sim-ops", max_sim_ops,
                 fmt::format("Largest simulation run, in ops (about {} bytes each); bigger ones are refused "
                             "before they start",
                             sim::kBytesPerSimOp))
      ->check(int_flag(1, sim::kMaxSimOps))
      ->capture_default_str();
}

void require_fits(const Scenario& s) {
  if (auto reason = sweep::capacity(s).infeasible_reason; !reason.empty()) throw InfeasibleError(std::move(reason));
}

void add_output_options(CLI::App& cmd, OutputOptions& out) {
  cmd.add_flag("--json", out.json, "Machine-readable JSON on stdout instead of tables");
}

void add_scenario_options(CLI::App& cmd, ScenarioOptions& opts) {
  cmd.add_option("-s,--scenario", opts.scenario_path, "Scenario TOML file (default: the shipped default scenario)")
      ->check(path_flag());
  cmd.add_option("--set", opts.overrides, "Override a scenario key, e.g. --set parallel.pp=8 (repeatable)")
      ->type_name("KEY=VALUE");
  cmd.add_option("--calibration", opts.calibration_path,
                 "Calibration profile JSON (overrides the scenario's calibration.profile)")
      ->check(path_flag());
  add_hardware_option(cmd, opts.hardware_path);
}

void add_hardware_option(CLI::App& cmd, std::string& path) {
  cmd.add_option("--hardware", path,
                 "Hardware TOML file ([gpu.NAME] tables, the catalog's schema) whose GPUs add to or "
                 "override the shipped catalog (sets hardware.catalog)")
      ->check(path_flag());
}

std::vector<scenarios::Override> scenario_overrides(const ScenarioOptions& opts) {
  std::vector<scenarios::Override> overrides;
  for (const auto& text : opts.overrides) overrides.push_back(scenarios::parse_override(text));
  // Quoted as TOML strings, so a path is never read as a number or a table.
  const auto quoted = [](const std::string& path) { return nlohmann::json(path).dump(); };
  if (!opts.calibration_path.empty()) overrides.push_back({"calibration.profile", quoted(opts.calibration_path)});
  if (!opts.hardware_path.empty()) overrides.push_back({"hardware.catalog", quoted(opts.hardware_path)});
  // After the flags that stand for keys: --set hardware.catalog=a --hardware b ran b.
  scenarios::require_distinct_overrides(overrides);
  return overrides;
}

std::filesystem::path scenario_file(const ScenarioOptions& opts) {
  return opts.scenario_path.empty() ? scenarios::default_scenario_path() : std::filesystem::path(opts.scenario_path);
}

void attach_calibration(Scenario& s) {
  // A profile changes every prediction: say which one, and warn when it is from another GPU.
  for (const auto& w : calib::attach_calibration(s)) std::cerr << "mhcsim: warning: " << w << "\n";
  if (s.calibration) std::cerr << "mhcsim: " << calib::describe_calibration(*s.calibration) << "\n";
}

Scenario load_scenario(const ScenarioOptions& opts) {
  Scenario s = scenarios::load_scenario(scenario_file(opts), scenario_overrides(opts));
  attach_calibration(s);
  return s;
}

void print_json(const nlohmann::json& doc) { std::cout << doc.dump(2) << "\n"; }

void Output::print_document(nlohmann::json inputs, nlohmann::json results) const {
  print_json(api::document(meta, std::move(inputs), std::move(results)));
}

namespace {
bool is_scenario_key(const std::string& key) {
  static const std::set<std::string> keys = [] {
    std::set<std::string> all;
    for (const auto& k : scenarios::scenario_keys()) all.insert(k.key);
    return all;
  }();
  return keys.count(key) > 0;
}
}  // namespace

CLI::App* add_scenario_verb(CLI::App& app, const std::string& name, const std::string& help, ScenarioVerbRun run) {
  struct Options {
    ScenarioOptions scn;
    OutputOptions out;
  };
  auto opts = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(name, help);
  add_scenario_options(*cmd, opts->scn);
  add_output_options(*cmd, opts->out);
  cmd->callback([opts, name, run = std::move(run)] {
    const Scenario s = load_scenario(opts->scn);
    try {
      run(s, Output{opts->out.json, {name, s.name, s.path, opts->scn.overrides}});
    } catch (const InputError& e) {
      // The cost model names a scenario key and knows no file: name where it was given (the
      // file's line, or --set). A flag's error ("--rate", "tokens") and one that has its place
      // already go out as they are.
      if (!e.where().file.empty() || !is_scenario_key(e.key())) throw;
      throw InputError(e.key(), e.reason(),
                       scenarios::key_location(scenario_file(opts->scn), scenario_overrides(opts->scn), e.key()));
    }
  });
  return cmd;
}

void print_quantities(const Output& out, const std::string& title, const std::vector<reports::Quantity>& q,
                      nlohmann::json inputs) {
  if (out.json) return out.print_document(std::move(inputs), reports::quantities_to_json(q));
  reports::print_quantities(std::cout, title, q);
}

void print_table(const Output& out, const reports::Table& t, nlohmann::json inputs) {
  if (out.json) return out.print_document(std::move(inputs), {{"rows", t.to_json()}});
  t.print_text(std::cout);
}

}  // namespace mhcsim::cli
