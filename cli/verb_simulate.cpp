// `mhcsim simulate`: run the scenario's pipeline schedule through the event-driven simulator
// (ops priced by cost_models per stage) and print the step in the terms `step` uses
// (sim/step_terms.h: compute, exposed communication, gradient sync, bubble), per rank, and
// against `step` with the modelled reasons for any difference (sim/versus_step.h);
// `--trace out.json[.gz]` writes a Chrome trace for Perfetto.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

#include "common.h"
#include "mhcsim/atomic_write.h"
#include "mhcsim/cost/memory.h"
#include "mhcsim/reports/table.h"
#include "mhcsim/sim/simulate.h"
#include "mhcsim/sim/trace.h"
#include "mhcsim/sim/versus_step.h"
#include "mhcsim/units.h"
#include "verbs.h"

namespace mhcsim::cli {
namespace {

std::vector<reports::Quantity> summary(const Scenario& s, const sim::Simulation& sim) {
  const auto& st = sim.stats;
  const auto terms = st.terms();
  double exposed = 0;
  for (const auto& r : st.ranks) exposed = std::max(exposed, r.exposed_comm_seconds);
  return {
      {"schedule", "schedule", std::string(to_string(s.parallel.schedule)), ""},
      {"pp", "pipeline ranks", s.parallel.pp, ""},
      {"micro_batches", "micro-batches per step", s.parallel.micro_batches, ""},
      {"layers_per_chunk", "layers per chunk", cost::layers_per_chunk(s), ""},
      {"step_seconds", "simulated step", st.step_seconds, "ms", 1.0 / kMs},
      {"pacing_rank", "pacing rank (least bubble)", int64_t{st.pacing_rank}, ""},
      {"compute_seconds", "compute (pacing rank)", terms.compute_seconds, "ms", 1.0 / kMs},
      {"exposed_comm_seconds", "exposed communication (pacing rank)", terms.exposed_comm_seconds, "ms", 1.0 / kMs},
      {"grad_sync_seconds", "exposed DP gradient sync", terms.grad_sync_seconds, "ms", 1.0 / kMs},
      {"bubble_seconds", "pipeline bubble (pacing rank)", terms.bubble_seconds, "ms", 1.0 / kMs},
      {"max_bubble_seconds", "time without compute (largest over ranks)", st.max_bubble_seconds, "ms", 1.0 / kMs},
      {"mean_bubble_fraction", "bubble fraction (mean over ranks)", st.mean_bubble_fraction, "%", 100.0, 2},
      {"max_exposed_comm_seconds", "exposed communication (largest)", exposed, "ms", 1.0 / kMs},
      {"max_peak_activation_chunks", "peak activations (chunk x micro-batch)", st.max_peak_activation_chunks, ""},
      {"max_peak_activation_bytes", "peak activation memory", st.max_peak_activation_bytes, "GiB", 1.0 / kGiB},
      {"ops", "simulated ops", st.ops, ""},
      {"events", "engine events (op completions)", st.events, ""},
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
                    {"grad_sync_seconds", "grad sync (ms)", 3, 1.0 / kMs},
                    {"peak_activation_chunks", "peak act (chunks)"},
                    {"peak_activation_bytes", "peak act (GiB)", 2, 1.0 / kGiB}});
  for (const auto& r : sim.stats.ranks)
    t.add_row({int64_t{r.rank}, r.bubble_seconds, r.bubble_fraction, r.compute_utilization,
               r.comm_utilization, r.exposed_comm_seconds, r.grad_sync_seconds, r.peak_activation_chunks,
               r.peak_activation_bytes});
  return t;
}

double percent_change(double value, double reference) { return reference > 0 ? value / reference - 1 : 0; }

reports::Table versus_table(const sim::VersusStep& v) {
  reports::Table t("simulated vs analytic (`step`), pacing rank; each row adds one refinement",
                   {{"model", "model"},
                    {"step_seconds", "step (ms)", 3, 1.0 / kMs},
                    {"step_vs_analytic", "vs step (%)", 2, 100.0},
                    {"compute_seconds", "compute (ms)", 3, 1.0 / kMs},
                    {"exposed_comm_seconds", "exposed comm (ms)", 3, 1.0 / kMs},
                    {"grad_sync_seconds", "grad sync (ms)", 3, 1.0 / kMs},
                    {"bubble_seconds", "bubble (ms)", 3, 1.0 / kMs},
                    {"bubble_vs_analytic", "bubble vs step (%)", 2, 100.0}});
  auto row = [&](std::string name, const sim::StepTerms& x) {
    t.add_row({std::move(name), x.step_seconds(), percent_change(x.step_seconds(), v.analytic.step_seconds()),
               x.compute_seconds, x.exposed_comm_seconds, x.grad_sync_seconds, x.bubble_seconds,
               percent_change(x.bubble_seconds, v.analytic.bubble_seconds)});
  };
  row("analytic", v.analytic);
  for (const auto& r : v.rows) row(r.key, r.terms);
  return t;
}

// One line: within the bounds, or what each refinement adds (the modelled reasons).
std::string verdict(const sim::VersusStep& v) {
  std::string line = fmt::format("simulated vs analytic: step {:+.1f}%, bubble {:+.1f}%: ", 100 * (v.step_ratio() - 1),
                                 100 * (v.bubble_ratio() - 1));
  if (v.within_bounds())
    return line + fmt::format("within {:.0f}% / {:.0f}%", 100 * sim::kStepTolerance, 100 * sim::kBubbleTolerance);
  line += fmt::format("outside {:.0f}% / {:.0f}%; modelled reasons (step, bubble):", 100 * sim::kStepTolerance,
                      100 * sim::kBubbleTolerance);
  const auto& first = v.rows.front().terms;
  line += fmt::format(" the schedule's own timeline vs its bubble formula {:+.1f} / {:+.1f} ms", (first.step_seconds() - v.analytic.step_seconds()) / kMs,
                      (first.bubble_seconds - v.analytic.bubble_seconds) / kMs);
  for (size_t i = 1; i < v.rows.size(); ++i) {
    const auto& a = v.rows[i - 1].terms;
    const auto& b = v.rows[i].terms;
    line += fmt::format("; {} {:+.1f} / {:+.1f} ms", v.rows[i].key, (b.step_seconds() - a.step_seconds()) / kMs,
                        (b.bubble_seconds - a.bubble_seconds) / kMs);
  }
  return line;
}

nlohmann::json versus_json(const sim::VersusStep& v) {
  return {{"table", versus_table(v).to_json()},
          {"step_ratio", v.step_ratio()},
          {"bubble_ratio", v.bubble_ratio()},
          {"within_bounds", v.within_bounds()},
          {"verdict", verdict(v)}};
}

}  // namespace

void setup_simulate(CLI::App& app) {
  struct Options {
    ScenarioOptions scn;
    OutputOptions out;
    std::string trace_path;
    int64_t max_sim_ops = sim::kDefaultMaxSimOps;
  };
  auto opts = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "simulate", "Simulate one training step's pipeline schedule with compute/communication overlap");
  add_scenario_options(*cmd, opts->scn);
  add_output_options(*cmd, opts->out);
  cmd->add_option("--trace", opts->trace_path,
                  "Write a Chrome trace event JSON of the step (opens in Perfetto; gzip when it ends in .gz)")
      ->check(path_flag());
  add_sim_budget_option(*cmd, opts->max_sim_ops);
  cmd->callback([opts] {
    const Scenario s = load_scenario(opts->scn);
    if (!opts->trace_path.empty()) require_output_file(opts->trace_path, true, "--trace");  // before the run
    sim::check_op_budget(sim::schedule_spec_from(s.parallel), opts->max_sim_ops);
    const auto sim = sim::simulate(s);
    sim::TraceCounts written;
    if (!opts->trace_path.empty()) written = sim::write_chrome_trace_file(sim, opts->trace_path);
    const bool train = s.workload.mode == WorkloadMode::Train;
    const auto q = summary(s, sim);
    const auto ranks = per_rank(sim);
    if (opts->out.json) {
      nlohmann::json doc = reports::quantities_to_json(q);
      doc["ranks"] = ranks.to_json();
      if (train) doc["versus_step"] = versus_json(sim::versus_step(s, sim));
      if (!opts->trace_path.empty()) {
        doc["trace_path"] = opts->trace_path;
        doc["trace_slices"] = written.slices;
        doc["trace_flows"] = written.flows;
      }
      print_json(doc);
      return require_fits(s);
    }
    reports::print_quantities(std::cout, fmt::format("simulated step: {} ({})", s.name, s.path), q);
    ranks.print_text(std::cout);
    if (train) {
      const auto v = sim::versus_step(s, sim);
      versus_table(v).print_text(std::cout);
      std::cout << "# " << verdict(v) << "\n";
    }
    if (!opts->trace_path.empty())
      std::cout << fmt::format("# trace written to {}: {} slices, {} flow arrows\n", opts->trace_path,
                               written.slices, written.flows);
    require_fits(s);
  });
}

}  // namespace mhcsim::cli
