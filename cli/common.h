#pragma once
// What every verb shares: scenario selection (-s, --set, --calibration) and output mode
// (--json). Verbs are thin: load the scenario, call the library, print a Table or JSON.
#include <CLI/CLI.hpp>

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mhcsim/specs.h"

namespace mhcsim::cli {

struct OutputOptions {
  bool json = false;
};

struct ScenarioOptions {
  std::string scenario_path;           // empty -> shipped default scenario
  std::vector<std::string> overrides;  // --set key=value
  std::string calibration_path;        // --calibration profile.json (overrides the scenario's)
};

void add_output_options(CLI::App& cmd, OutputOptions& out);
void add_scenario_options(CLI::App& cmd, ScenarioOptions& opts);

// Loads and validates; throws InputError (printed by main as one line, exit code 2).
Scenario load_scenario(const ScenarioOptions& opts);

// Prints JSON (pretty, one document) to stdout.
void print_json(const nlohmann::json& doc);

}  // namespace mhcsim::cli
