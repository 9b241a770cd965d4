// mhcsim: the command-line front end. Every verb lives in its own file; this file wires them
// and turns errors into one line on stderr with a meaningful exit code.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include "mhcsim/error.h"
#include "mhcsim/version.h"
#include "verbs.h"

namespace {

// CLI11 answers a word that is no verb with "A subcommand is required": say which word, and
// what the verbs are. Empty when argv[1] is a verb or an option.
std::string unknown_verb(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return "";
  std::string verbs;
  for (const CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (sub->check_name(argv[1])) return "";
    verbs += (verbs.empty() ? "" : ", ") + sub->get_name();
  }
  return fmt::format("{:?} is not a verb (expected one of {}; mhcsim --help says what each does)", argv[1], verbs);
}

// `mhcsim step --json > out.json` on a full disk must not exit 0 with a cut file: stdout is
// flushed and checked before the exit code is returned (exit 1, as any failure while running).
int checked_stdout(int rc) {
  errno = 0;
  std::cout.flush();
  const bool flushed = std::fflush(stdout) == 0;
  if (flushed && std::cout.good() && !std::ferror(stdout)) return rc;
  std::cerr << "mhcsim: error: cannot write standard output" << (errno != 0 ? ": " : "")
            << (errno != 0 ? std::strerror(errno) : "") << "\n";
  return 1;
}

int run(int argc, char** argv) {
  CLI::App app{
      "mhcsim: performance model and simulator for DeepSeek-style LLM training and "
      "serving (mHC, MLA, DeepSeekMoE, FP8, DualPipe)",
      "mhcsim"};
  app.set_version_flag("--version", std::string("mhcsim ") + mhcsim::kVersion);
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 done; 1 a failure while running (e.g. disk full); 2 bad input (one line: "
      "file:line: key: what is wrong); 3 the configuration does not fit its GPUs (step, memory, "
      "simulate and report print the result, then `does not fit: <why>` on stderr).");
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
  mhcsim::cli::setup_search(app);
  mhcsim::cli::setup_report(app);
  mhcsim::cli::setup_validate(app);
  mhcsim::cli::setup_serve(app);
  mhcsim::cli::setup_stability(app);
  mhcsim::cli::setup_diff(app);

  if (const std::string unknown = unknown_verb(app, argc, argv); !unknown.empty()) {
    std::cerr << "mhcsim: " << unknown << "\n";
    return mhcsim::kExitInputError;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help / --version exit 0; a bad flag or value is an input error like a bad scenario:
    // one line, as every other input error (CLI11's own print adds a "Run with --help" line).
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "mhcsim: " << e.what() << "\n";
    return mhcsim::kExitInputError;
  } catch (const mhcsim::InputError& e) {
    std::cerr << "mhcsim: " << e.what() << "\n";
    return mhcsim::kExitInputError;
  } catch (const mhcsim::InfeasibleError& e) {
    std::cerr << "mhcsim: does not fit: " << e.what() << "\n";
    return mhcsim::kExitInfeasible;
  } catch (const std::exception& e) {
    std::cerr << "mhcsim: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return checked_stdout(run(argc, argv)); }
