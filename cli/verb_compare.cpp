// `mhcsim compare --trace measured.json[.gz] -s scenario.toml`: a measured Chrome trace
// (PyTorch profiler / Kineto) against the simulated step, per op class and per stream role:
// busy time, compute/communication overlap, bubble and step time, each with its error.
// `--simulated other.json` compares against a second trace instead (e.g. `simulate --trace`).
// `--window` / a fractional `--steps` compare a trace of part of a step (a chunk pair, a
// micro-batch) with the simulated step's share; `--list-kernels` lists the trace's kernels with
// the class each got.
#include <iostream>
#include <limits>
#include <memory>

#include "common.h"
#include "mhcsim/api/compare.h"
#include "verbs.h"

namespace mhcsim::cli {
namespace {

struct CompareOptions {
  ScenarioOptions scn;
  OutputOptions out;
  api::CompareRequest request;
};

CLI::Validator steps_flag() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        return api::parse_steps(s) ? std::string()
                                   : "'" + s +
                                         "' is not a number of steps (expected N, 0.25 or 1/120, "
                                         "between 1e-6 and 1e6)";
      },
      "STEPS");
}

void run(const CompareOptions& o) {
  const auto a = api::compare(o.request, [&] { return load_scenario(o.scn); });
  if (o.out.json) {
    // The meta names the simulated scenario when there is one (not with --simulated or --list-kernels).
    const Output out = a.scenario
                           ? Output{true, {"compare", a.scenario->name, scenario_file(o.scn).string(), o.scn.overrides}}
                           : Output{true, {"compare", "", "", {}}};
    return out.print_document(a.inputs, a.results);
  }
  a.table.print_text(std::cout);
  for (const auto& note : a.notes) std::cout << "# " << note << "\n";
}

}  // namespace

void setup_compare(CLI::App& app) {
  auto opts = std::make_shared<CompareOptions>();
  auto* cmd =
      app.add_subcommand("compare", "Compare a measured Chrome trace (PyTorch profiler) with the simulated step");
  cmd->add_option("--trace", opts->request.trace, "Measured trace: Chrome trace event JSON, optionally gzipped")
      ->required()
      ->check(path_flag());
  cmd->add_option("--simulated", opts->request.simulated_trace,
                  "Compare against this trace instead of simulating the scenario")
      ->check(path_flag());
  cmd->add_option("--patterns", opts->request.patterns,
                  "Kernel-name and annotation patterns per op class (TOML or JSON) over the defaults")
      ->check(path_flag());
  cmd->add_option("--steps", opts->request.steps,
                  "Training steps the measured trace holds (default 1; a fraction such as 1/120 or 0.25 is a "
                  "window: part of a step, compared with the simulated step's share)")
      ->check(steps_flag());
  cmd->add_option("--window", opts->request.window,
                  "What part of a step the trace covers: step, micro-batch, chunk-pair (one forward and one "
                  "backward chunk, DualPipe's F&B) or a fraction such as 1/120; the measured idle time is not "
                  "scaled up (default step)");
  cmd->add_flag("--list-kernels", opts->request.list_kernels,
                "List every kernel name of the trace with its count, total time, class and direction, and stop");
  cmd->add_option("--rank", opts->request.rank,
                  "Simulated pipeline rank of the trace's first GPU (default 0); later GPUs follow")
      ->check(int_flag(0, api::kMaxCompareRank));
  add_sim_budget_option(*cmd, opts->request.max_sim_ops);
  cmd->add_option("--max-trace-bytes", opts->request.limits.max_bytes,
                  "Largest trace accepted, in bytes of JSON after decompression (a bound on time)")
      ->check(int_flag(1, std::numeric_limits<int64_t>::max()))
      ->capture_default_str();
  cmd->add_option("--max-trace-events", opts->request.limits.max_events,
                  "Most traceEvents entries accepted (a bound on memory: 32 bytes per kernel)")
      ->check(int_flag(1, std::numeric_limits<int64_t>::max()))
      ->capture_default_str();
  add_scenario_options(*cmd, opts->scn);
  add_output_options(*cmd, opts->out);
  cmd->callback([opts] { run(*opts); });
}

}  // namespace mhcsim::cli
