// mhcsim: the command-line front end. Every verb lives in its own file; this file wires them
// and turns errors into one line on stderr with a meaningful exit code.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <iostream>

#include "mhcsim/error.h"
#include "mhcsim/version.h"
#include "verbs.h"

int main(int argc, char** argv) {
  CLI::App app{"mhcsim: performance model and simulator for DeepSeek-style LLM training and "
               "serving (mHC, MLA, DeepSeekMoE, FP8, DualPipe)",
               "mhcsim"};
  app.set_version_flag("--version", std::string("mhcsim ") + mhcsim::kVersion);
  app.require_subcommand(1);
  app.fallthrough();

  mhcsim::cli::setup_hw(app);
  mhcsim::cli::setup_scenario(app);
  mhcsim::cli::setup_traffic(app);
  mhcsim::cli::setup_kv(app);
  mhcsim::cli::setup_a2a(app);
  mhcsim::cli::setup_bubble(app);
  mhcsim::cli::setup_memory(app);
  mhcsim::cli::setup_step(app);
  mhcsim::cli::setup_compare(app);
  mhcsim::cli::setup_calibrate(app);
  mhcsim::cli::setup_simulate(app);
  mhcsim::cli::setup_sweep(app);
  mhcsim::cli::setup_report(app);
  mhcsim::cli::setup_validate(app);
  mhcsim::cli::setup_serve(app);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help / --version exit 0; a bad flag or value is an input error like a bad scenario.
    const int code = app.exit(e);
    return code == 0 ? 0 : mhcsim::kExitInputError;
  } catch (const mhcsim::InputError& e) {
    std::cerr << "mhcsim: " << e.what() << "\n";
    return mhcsim::kExitInputError;
  } catch (const std::exception& e) {
    std::cerr << "mhcsim: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
