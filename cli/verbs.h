#pragma once
// One function per verb, each in its own verb_<name>.cpp (CLI11 subcom_in_files habit).
// A verb appears here only once it is implemented.
#include <CLI/CLI.hpp>

namespace mhcsim::cli {

void setup_hw(CLI::App& app);
void setup_scenario(CLI::App& app);
void setup_traffic(CLI::App& app);
void setup_kv(CLI::App& app);
void setup_a2a(CLI::App& app);
void setup_bubble(CLI::App& app);
void setup_memory(CLI::App& app);
void setup_step(CLI::App& app);
void setup_compare(CLI::App& app);
void setup_calibrate(CLI::App& app);
void setup_simulate(CLI::App& app);
void setup_sweep(CLI::App& app);
void setup_search(CLI::App& app);
void setup_report(CLI::App& app);
void setup_validate(CLI::App& app);
void setup_serve(CLI::App& app);
void setup_stability(CLI::App& app);
void setup_diff(CLI::App& app);

}  // namespace mhcsim::cli
