#include "mhcsim/api/simulate.h"

#include <fmt/format.h>

#include <algorithm>

#include "mhcsim/atomic_write.h"
#include "mhcsim/cost/memory.h"
#include "mhcsim/sim/serving.h"
#include "mhcsim/units.h"

namespace mhcsim::api {

SimulateRun simulate(const Scenario& s, const SimulateOptions& options) {
  if (!options.trace_path.empty())
    require_output_file(options.trace_path, options.force, options.trace_option, sim::kTraceWrittenBy);
  sim::check_op_budget(s, options.max_sim_ops, options.max_sim_ops_option);
  SimulateRun run{sim::simulate(s), options.trace_path, {}};
  if (!run.trace_path.empty()) run.trace = sim::write_chrome_trace_file(run.simulation, run.trace_path);
  return run;
}

std::vector<reports::Quantity> simulate_summary(const Scenario& s, const sim::Simulation& sim) {
  const auto& st = sim.stats;
  double exposed = 0;
  for (const auto& r : st.ranks) exposed = std::max(exposed, r.exposed_comm_seconds);
  // A serving run reports its last iteration (the steady state `step` prices) beside the span
  // of all the iterations it simulated (serving.h).
  const bool serving = s.workload.mode == WorkloadMode::Serve;
  const auto terms = serving ? sim.iteration : st.terms();
  const auto plan = serving ? sim::serving_plan(s) : sim::ServingPlan{};
  std::vector<reports::Quantity> q;
  if (serving) {
    q = {{"schedule", "schedule",
          plan.paired      ? std::string("forward only, two overlapped micro-batches")
          : plan.ranks > 1 ? std::string("forward only, pipelined")
                           : std::string("forward only"),
          ""},
         {"pp", "pipeline ranks", s.parallel.pp, ""},
         {"micro_batches", "micro-batches per iteration (splitting the batch)", int64_t{plan.micro_batches}, ""},
         {"layers_per_chunk", "layers per stage (the most loaded)",
          (s.model.layers + s.parallel.pp - 1) / s.parallel.pp, ""},
         {"iterations", "iterations simulated", int64_t{sim.iterations}, ""},
         {"step_s", "simulated iteration (the last)", terms.step_seconds(), "ms", 1.0 / kMs},
         {"span_s", "simulated span (all iterations, from empty)", st.step_seconds, "ms", 1.0 / kMs}};
  } else {
    q = {{"schedule", "schedule", std::string(to_string(s.parallel.schedule)), ""},
         {"pp", "pipeline ranks", s.parallel.pp, ""},
         {"micro_batches", "micro-batches per step", s.parallel.micro_batches, ""},
         {"layers_per_chunk", "layers per chunk", cost::layers_per_chunk(s), ""},
         {"step_s", "simulated step", st.step_seconds, "ms", 1.0 / kMs}};
  }
  const char* of = serving ? " (pacing rank, last iteration)" : " (pacing rank)";
  const char* span = serving ? ", all iterations" : "";
  const std::vector<reports::Quantity> rest{
      {"pacing_rank", "pacing rank (least bubble)", int64_t{st.pacing_rank}, ""},
      {"compute_s", fmt::format("compute{}", of), terms.compute_seconds, "ms", 1.0 / kMs},
      {"exposed_comm_s", fmt::format("exposed communication{}", of), terms.exposed_comm_seconds, "ms", 1.0 / kMs},
      {"grad_sync_s", "exposed DP gradient sync", terms.grad_sync_seconds, "ms", 1.0 / kMs},
      {"bubble_s", fmt::format("pipeline bubble{}", of), terms.bubble_seconds, "ms", 1.0 / kMs},
      {"max_bubble_s", fmt::format("time without compute (largest over ranks{})", span), st.max_bubble_seconds, "ms",
       1.0 / kMs},
      {"mean_bubble_fraction", fmt::format("bubble fraction (mean over ranks{})", span), st.mean_bubble_fraction, "%",
       100.0, 2},
      {"max_exposed_comm_s", fmt::format("exposed communication (largest{})", span), exposed, "ms", 1.0 / kMs},
      {"max_peak_activation_chunks", "peak activations (chunk x micro-batch)", st.max_peak_activation_chunks, ""},
      {"max_peak_activation_bytes", "peak activation memory", st.max_peak_activation_bytes, "GiB", 1.0 / kGiB},
      {"ops", "simulated ops", st.ops, ""},
      {"events", "engine events (op completions)", st.events, ""},
  };
  q.insert(q.end(), rest.begin(), rest.end());
  return q;
}

reports::Table simulate_ranks(const sim::Simulation& sim) {
  reports::Table t(sim.iterations > 1 ? "per rank, all iterations" : "per rank",
                   {{"rank", "rank"},
                    {"bubble_s", "bubble (ms)", 3, 1.0 / kMs},
                    {"bubble_fraction", "bubble (%)", 2, 100.0},
                    {"compute_utilisation", "compute util (%)", 2, 100.0},
                    {"comm_utilisation", "comm util (%)", 2, 100.0},
                    {"exposed_comm_s", "exposed comm (ms)", 3, 1.0 / kMs},
                    {"grad_sync_s", "grad sync (ms)", 3, 1.0 / kMs},
                    {"peak_activation_chunks", "peak act (chunks)"},
                    {"peak_activation_bytes", "peak act (GiB)", 2, 1.0 / kGiB}});
  for (const auto& r : sim.stats.ranks)
    t.add_row({int64_t{r.rank}, r.bubble_seconds, r.bubble_fraction, r.compute_utilization, r.comm_utilization,
               r.exposed_comm_seconds, r.grad_sync_seconds, r.peak_activation_chunks, r.peak_activation_bytes});
  return t;
}

namespace {
double percent_change(double value, double reference) { return reference > 0 ? value / reference - 1 : 0; }
}  // namespace

reports::Table versus_table(const sim::VersusStep& v) {
  reports::Table t(v.serving ? "simulated vs analytic (`step`): the iteration, pacing rank"
                             : "simulated vs analytic (`step`), pacing rank; each row adds one refinement",
                   {{"model", "model"},
                    {"step_s", "step (ms)", 3, 1.0 / kMs},
                    {"step_vs_analytic", "vs step (%)", 2, 100.0},
                    {"compute_s", "compute (ms)", 3, 1.0 / kMs},
                    {"exposed_comm_s", "exposed comm (ms)", 3, 1.0 / kMs},
                    {"grad_sync_s", "grad sync (ms)", 3, 1.0 / kMs},
                    {"bubble_s", "bubble (ms)", 3, 1.0 / kMs},
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

std::string versus_verdict(const sim::VersusStep& v) {
  if (v.serving) {
    // Both sides price the same pieces; what differs is how much of the communication the
    // timeline hides, and (in a pipeline) how the wait for a micro-batch in transit splits
    // into exposed sends and bubble, so only the iteration is held to the tolerance.
    const auto& a = v.analytic;
    const auto& s = v.simulated();
    return fmt::format(
        "simulated vs analytic: iteration {:+.1f}%: {} {:.0f}%; compute {:.3f} vs {:.3f} ms, exposed "
        "communication {:.3f} vs {:.3f} ms (the all-to-all hidden piece by piece, layer by layer; "
        "stage sends on their links), bubble {:.3f} vs {:.3f} ms",
        100 * (v.step_ratio() - 1), v.within_bounds() ? "within" : "outside", 100 * sim::kStepTolerance,
        s.compute_seconds / kMs, a.compute_seconds / kMs, s.exposed_comm_seconds / kMs, a.exposed_comm_seconds / kMs,
        s.bubble_seconds / kMs, a.bubble_seconds / kMs);
  }
  std::string line = fmt::format("simulated vs analytic: step {:+.1f}%, bubble {:+.1f}%: ", 100 * (v.step_ratio() - 1),
                                 100 * (v.bubble_ratio() - 1));
  if (v.within_bounds())
    return line + fmt::format("within {:.0f}% / {:.0f}%", 100 * sim::kStepTolerance, 100 * sim::kBubbleTolerance);
  line += fmt::format("outside {:.0f}% / {:.0f}%; modelled reasons (step, bubble):", 100 * sim::kStepTolerance,
                      100 * sim::kBubbleTolerance);
  const auto& first = v.rows.front().terms;
  line += fmt::format(
      " the timeline op by op vs step's bubble (formula, or slot by slot for the DualPipes) "
      "{:+.1f} / {:+.1f} ms",
      (first.step_seconds() - v.analytic.step_seconds()) / kMs,
      (first.bubble_seconds - v.analytic.bubble_seconds) / kMs);
  for (size_t i = 1; i < v.rows.size(); ++i) {
    const auto& a = v.rows[i - 1].terms;
    const auto& b = v.rows[i].terms;
    line += fmt::format("; {} {:+.1f} / {:+.1f} ms", v.rows[i].key, (b.step_seconds() - a.step_seconds()) / kMs,
                        (b.bubble_seconds - a.bubble_seconds) / kMs);
  }
  return line;
}

nlohmann::json to_json(const Scenario& s, const SimulateRun& run) {
  nlohmann::json doc = reports::quantities_to_json(simulate_summary(s, run.simulation));
  doc["ranks"] = simulate_ranks(run.simulation).to_json();
  const auto v = sim::versus_step(s, run.simulation);
  doc["versus_step"] = {{"table", versus_table(v).to_json()},
                        {"step_ratio", v.step_ratio()},
                        {"bubble_ratio", v.bubble_ratio()},
                        {"within_bounds", v.within_bounds()},
                        {"verdict", versus_verdict(v)}};
  if (!run.trace_path.empty()) {
    doc["trace_path"] = run.trace_path;
    doc["trace_slices"] = run.trace.slices;
    doc["trace_flows"] = run.trace.flows;
  }
  return doc;
}

}  // namespace mhcsim::api
