#pragma once
// What every verb shares: scenario selection (-s, --set, --calibration) and output mode
// (--json). Verbs are thin: load the scenario, call the library, print a Table or JSON.
#include <CLI/CLI.hpp>

#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mhcsim/api/document.h"
#include "mhcsim/reports/table.h"
#include "mhcsim/scenarios/load.h"
#include "mhcsim/specs.h"

namespace mhcsim::cli {

struct OutputOptions {
  bool json = false;
};

// How a verb prints its answer: aligned text for people, or with --json one document
// (api/document.h: meta, inputs, results) that schemas/<verb>.schema.json describes.
struct Output {
  bool json = false;
  api::DocumentMeta meta;
  void print_document(nlohmann::json inputs, nlohmann::json results) const;
};

struct ScenarioOptions {
  std::string scenario_path;           // empty -> shipped default scenario
  std::vector<std::string> overrides;  // --set key=value
  std::string calibration_path;        // --calibration profile.json (overrides the scenario's)
  std::string hardware_path;           // --hardware FILE.toml: GPUs added to / overriding the catalog
};

// Flag checks for CLI11's ->check(), with the messages scenario keys give ("0 is out of range
// (expected integer in [1, 4294967296])"), so a flag is held to the same rules as a key.
CLI::Validator path_flag(const char* expected = "a file name");  // a path: not empty
// -o PREFIX for verbs that write PREFIX.csv / PREFIX.json: not empty, and a trailing ".csv" or
// ".json" is dropped (`sweep -o out.csv` writes out.csv and out.json, not out.csv.csv).
CLI::Validator output_prefix_flag(const char* expected);
CLI::Validator int_flag(int64_t lo, int64_t hi);   // an integer in [lo, hi]
CLI::Validator number_flag(double lo, double hi);  // a finite number in [lo, hi]
// A flag that stands for a scenario key (kv --context for workload.context_len): the key's own
// type, range and message (scenarios::key_value_problem).
CLI::Validator key_flag(const std::string& key);

// --max-sim-ops, for the verbs that run the simulator (sim::check_op_budget).
void add_sim_budget_option(CLI::App& cmd, int64_t& max_sim_ops);

// Prints nothing when the scenario fits its GPUs (sweep::capacity); otherwise throws
// InfeasibleError with the reason, which main prints as one line before exiting with
// kExitInfeasible. Verbs call it after printing their result: it stays useful (what the
// configuration would cost), the exit code says it cannot run.
void require_fits(const Scenario& s);

void add_output_options(CLI::App& cmd, OutputOptions& out);
void add_scenario_options(CLI::App& cmd, ScenarioOptions& opts);

// Loads and validates; throws InputError (printed by main as one line, exit code 2).
Scenario load_scenario(const ScenarioOptions& opts);
// What load_scenario reads: the file (or the shipped default) and the overrides (--set, then
// --calibration), for verbs that parse the scenario once and instantiate it many times.
std::filesystem::path scenario_file(const ScenarioOptions& opts);
std::vector<scenarios::Override> scenario_overrides(const ScenarioOptions& opts);
// --hardware FILE.toml, for verbs that take a scenario (through add_scenario_options) and `hw`.
void add_hardware_option(CLI::App& cmd, std::string& path);
// Reads s.calibration_path into s.calibration and says so on stderr (with any GPU-mismatch
// warning); load_scenario calls it.
void attach_calibration(Scenario& s);

// Prints JSON (pretty, one document) to stdout.
void print_json(const nlohmann::json& doc);

// A verb over one scenario: registers -s/--set/--calibration and --json, and when the verb is
// chosen loads the scenario and calls `run(scenario, output)`. Returns the subcommand so the
// verb can add its own options (bound to state the `run` closure shares).
using ScenarioVerbRun = std::function<void(const Scenario& scenario, const Output& out)>;
CLI::App* add_scenario_verb(CLI::App& app, const std::string& name, const std::string& help, ScenarioVerbRun run);

// Quantities as the document's results object (--json, beside `inputs`) or as a titled,
// aligned list with units.
void print_quantities(const Output& out, const std::string& title, const std::vector<reports::Quantity>& q,
                      nlohmann::json inputs);
// A table as the document's results {"rows": [...]} (--json) or aligned text.
void print_table(const Output& out, const reports::Table& t, nlohmann::json inputs);

}  // namespace mhcsim::cli
