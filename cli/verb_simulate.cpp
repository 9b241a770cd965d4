// `mhcsim simulate`: run the scenario's pipeline schedule through the event-driven simulator
// (ops priced by cost_models per stage) and print the step in the terms `step` uses
// (sim/step_terms.h: compute, exposed communication, gradient sync, bubble), per rank, and
// against `step` with the modelled reasons for any difference (sim/versus_step.h);
// `--trace out.json[.gz]` writes a Chrome trace for Perfetto.
#include <fmt/format.h>

#include <memory>
#include <string>

#include "common.h"
#include "mhcsim/api/simulate.h"
#include "verbs.h"

namespace mhcsim::cli {

void setup_simulate(CLI::App& app) {
  struct Options {
    ScenarioOptions scn;
    OutputOptions out;
    std::string trace_path;
    int64_t max_sim_ops = sim::kDefaultMaxSimOps;
    bool force = false;
  };
  auto opts = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "simulate",
      "Simulate one training step's pipeline schedule, or a serving iteration's forward passes, with "
      "compute/communication overlap");
  add_scenario_options(*cmd, opts->scn);
  add_output_options(*cmd, opts->out);
  cmd->add_option("--trace", opts->trace_path,
                  "Write a Chrome trace event JSON of the step (opens in Perfetto; gzip when it ends in .gz)")
      ->check(path_flag());
  add_sim_budget_option(*cmd, opts->max_sim_ops);
  cmd->add_flag("--force", opts->force, "Replace an existing --trace file mhcsim wrote");
  cmd->callback([opts] {
    const Scenario s = load_scenario(opts->scn);
    const auto run = api::simulate(s, {opts->trace_path, opts->max_sim_ops, "--trace", "--max-sim-ops", opts->force});
    if (opts->out.json) {
      auto inputs = api::scenario_inputs(s);
      inputs["trace"] = opts->trace_path.empty() ? nlohmann::json() : nlohmann::json(opts->trace_path);
      Output{true, {"simulate", s.name, s.path, opts->scn.overrides}}.print_document(std::move(inputs),
                                                                                     api::to_json(s, run));
      return require_fits(s);
    }
    const auto& sim = run.simulation;
    const bool serving = s.workload.mode == WorkloadMode::Serve;
    reports::print_quantities(std::cout,
                              fmt::format("simulated {}: {} ({})", serving ? "iteration" : "step", s.name, s.path),
                              api::simulate_summary(s, sim));
    api::simulate_ranks(sim).print_text(std::cout);
    const auto v = sim::versus_step(s, sim);
    api::versus_table(v).print_text(std::cout);
    std::cout << "# " << api::versus_verdict(v) << "\n";
    if (!run.trace_path.empty())
      std::cout << fmt::format("# trace written to {}: {} slices, {} flow arrows\n", run.trace_path, run.trace.slices,
                               run.trace.flows);
    require_fits(s);
  });
}

}  // namespace mhcsim::cli
