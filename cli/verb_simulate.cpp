// `mhcsim simulate`: run the scenario's pipeline schedule through the event-driven simulator
// (ops priced by cost_models) and print the step, per-rank bubble, utilisation, exposed
// communication and peak activations; `--trace out.json` writes a Chrome trace for Perfetto.
#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <string>

#include "common.h"
#include "mhcsim/cost/memory.h"
#include "mhcsim/reports/table.h"
#include "mhcsim/sim/simulate.h"
#include "mhcsim/sim/trace.h"
#include "mhcsim/units.h"
#include "verbs.h"

namespace mhcsim::cli {
namespace {

std::vector<reports::Quantity> summary(const Scenario& s, const sim::Simulation& sim) {
  const auto& st = sim.stats;
  double exposed = 0, peak_bytes = 0;
  for (const auto& r : st.ranks) {
    exposed = std::max(exposed, r.exposed_comm_seconds);
    peak_bytes = std::max(peak_bytes, r.peak_activation_bytes);
  }
  return {
      {"schedule", "schedule", std::string(to_string(s.parallel.schedule)), ""},
      {"pp", "pipeline ranks", s.parallel.pp, ""},
      {"micro_batches", "micro-batches per step", s.parallel.micro_batches, ""},
      {"layers_per_chunk", "layers per chunk", cost::layers_per_chunk(s), ""},
      {"step_seconds", "simulated step", st.step_seconds, "ms", 1.0 / kMs},
      {"max_bubble_seconds", "bubble (largest over ranks)", st.max_bubble_seconds, "ms", 1.0 / kMs},
      {"mean_bubble_fraction", "bubble fraction (mean over ranks)", st.mean_bubble_fraction, "%", 100.0, 2},
      {"max_exposed_comm_seconds", "exposed communication (largest)", exposed, "ms", 1.0 / kMs},
      {"max_peak_activation_chunks", "peak activations (chunk x micro-batch)", st.max_peak_activation_chunks, ""},
      {"max_peak_activation_bytes", "peak activation memory", peak_bytes, "GiB", 1.0 / kGiB},
      {"ops", "simulated ops", st.ops, ""},
      {"events", "events", st.events, ""},
  };
}

reports::Table per_rank(const sim::Simulation& sim) {
  reports::Table t("per rank",
                   {{"rank", "rank"},
                    {"bubble_seconds", "bubble (ms)", 3, 1.0 / kMs},
                    {"bubble_fraction", "bubble (%)", 2, 100.0},
                    {"compute_utilization", "compute util (%)", 2, 100.0},
                    {"comm_utilization", "comm util (%)", 2, 100.0},
                    {"exposed_comm_seconds", "exposed comm (ms)", 3, 1.0 / kMs},
                    {"peak_activation_chunks", "peak act (chunks)"},
                    {"peak_activation_bytes", "peak act (GiB)", 2, 1.0 / kGiB}});
  for (const auto& r : sim.stats.ranks)
    t.add_row({int64_t{r.rank}, r.bubble_seconds, r.bubble_fraction, r.compute_utilization,
               r.comm_utilization, r.exposed_comm_seconds, r.peak_activation_chunks,
               r.peak_activation_bytes});
  return t;
}

}  // namespace

void setup_simulate(CLI::App& app) {
  struct Options {
    ScenarioOptions scn;
    OutputOptions out;
    std::string trace_path;
  };
  auto opts = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "simulate", "Simulate one training step's pipeline schedule with compute/communication overlap");
  add_scenario_options(*cmd, opts->scn);
  add_output_options(*cmd, opts->out);
  cmd->add_option("--trace", opts->trace_path,
                  "Write a Chrome trace event JSON of the step (opens in Perfetto)");
  cmd->callback([opts] {
    const Scenario s = load_scenario(opts->scn);
    const auto sim = sim::simulate(s);
    if (!opts->trace_path.empty()) sim::write_chrome_trace_file(sim, opts->trace_path);
    const auto q = summary(s, sim);
    const auto ranks = per_rank(sim);
    if (opts->out.json) {
      nlohmann::json doc = reports::quantities_to_json(q);
      doc["ranks"] = ranks.to_json();
      if (!opts->trace_path.empty()) doc["trace_path"] = opts->trace_path;
      return print_json(doc);
    }
    reports::print_quantities(std::cout, fmt::format("simulated step: {} ({})", s.name, s.path), q);
    ranks.print_text(std::cout);
    if (!opts->trace_path.empty()) std::cout << "# trace written to " << opts->trace_path << "\n";
  });
}

}  // namespace mhcsim::cli
