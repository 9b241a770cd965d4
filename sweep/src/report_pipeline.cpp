// Report section: the simulated pipeline timeline, and bubble vs micro-batches per schedule.
#include <fmt/format.h>

#include <algorithm>

#include "mhcsim/cost/step.h"
#include "mhcsim/error.h"
#include "mhcsim/reports/svg.h"
#include "mhcsim/sim/simulate.h"
#include "mhcsim/sim/step_terms.h"
#include "report_parts.h"

namespace mhcsim::sweep::detail {
namespace {

constexpr Schedule kSchedules[] = {Schedule::OneF1B, Schedule::Interleaved1F1B, Schedule::ZB1P, Schedule::DualPipe,
                                   Schedule::DualPipeV};

// A variant the report may simulate: valid, and within the op budget.
bool simulable(const std::optional<Scenario>& v, int64_t max_sim_ops) {
  return v && sim::estimated_ops(sim::schedule_spec_from(v->parallel)) <= max_sim_ops;
}

// Few enough micro-batches that every op stays visible: the schedule's minimum (2 x PP for
// DualPipe and DualPipeV, PP otherwise), or the scenario's count when smaller.
int64_t picture_micro_batches(const ParallelSpec& p) {
  const bool dual = p.schedule == Schedule::DualPipe || p.schedule == Schedule::DualPipeV;
  return std::min(p.micro_batches, (dual ? 2 : 1) * p.pp);
}

reports::TimelineChart timeline(const sim::Simulation& sim) {
  reports::TimelineChart t;
  t.title = fmt::format("Simulated pipeline step: {} ranks, {} micro-batches", sim.spec.ranks, sim.spec.micro_batches);
  t.time = {"time", "ms", false, 1e3};
  t.row_label = "pipeline rank: compute / communication";
  t.kinds = {"forward", "backward", "backward (input grad)", "weight grad", "EP all-to-all", "PP transfer"};
  const auto& g = sim.graph;
  const int32_t ranks = g.streams / sim::kStreamsPerRank;
  for (int32_t r = 0; r < ranks; ++r) {
    t.rows.push_back(fmt::format("{} comp", r));
    t.rows.push_back(fmt::format("{} comm", r));
  }
  for (int32_t op = 0; op < g.op_count(); ++op) {
    const auto stream = g.stream[static_cast<size_t>(op)];
    const auto kind = g.kind_of_stream(stream);
    const auto unit = g.label[static_cast<size_t>(op)].unit;
    int32_t k = 0;
    if (kind == sim::StreamKind::EpAllToAll)
      k = 4;
    else if (!sim::is_compute(kind))
      k = 5;
    else if (unit == sim::UnitKind::Backward)
      k = 1;
    else if (unit == sim::UnitKind::BackwardInput)
      k = 2;
    else if (unit == sim::UnitKind::Weight)
      k = 3;
    t.ops.push_back({2 * g.rank_of_stream(stream) + (sim::is_compute(kind) ? 0 : 1), k,
                     sim.timeline.start_seconds[static_cast<size_t>(op)],
                     sim.timeline.end_seconds[static_cast<size_t>(op)]});
  }
  return t;
}

}  // namespace

reports::Section pipeline_section(const Scenario& s, scenarios::ScenarioTemplate& tpl, int64_t max_sim_ops) {
  reports::Section sec{"Pipeline", {}};
  const int64_t mb = picture_micro_batches(s.parallel);
  const auto small = variant(tpl, s, {{"parallel.micro_batches", std::to_string(mb)}});
  if (simulable(small, max_sim_ops)) {
    const auto sim = sim::simulate(*small);
    sec.blocks.emplace_back(reports::figure(
        "timeline",
        fmt::format("One training step as the simulator schedules it ({}, PP {}), with {} micro-batches instead of "
                    "the scenario's {} so that every op shows; colours are op kinds, each rank has a compute row "
                    "and a communication row. Makespan {:.2f} ms.",
                    to_string(s.parallel.schedule), s.parallel.pp, mb, s.parallel.micro_batches,
                    sim.stats.step_seconds * 1e3),
        timeline(sim)));
  }

  // Bubble fraction vs micro-batches, each schedule priced at its own chunk size (a DualPipe
  // chunk is half a stage) as `step` prices it; the simulator for the scenario's own.
  reports::LineChart c;
  c.title = fmt::format("Pipeline bubble vs micro-batches (PP {})", s.parallel.pp);
  c.x = {"micro-batches per step", "count", true};
  c.y = {"bubble fraction of the step", "%", false, 100};
  std::vector<std::string> skipped;
  for (Schedule sch : kSchedules) {
    const std::string name(to_string(sch));
    std::vector<scenarios::Override> o = {{"parallel.schedule", name}};
    if (sch == Schedule::Interleaved1F1B && sch != s.parallel.schedule) o.push_back({"parallel.virtual_stages", "2"});
    if (!variant(tpl, s, o)) {
      skipped.push_back(name);
      continue;
    }
    reports::Series analytic{name, {}, {}};
    reports::Series simulated{name + " (simulated)", {}, {}, true};
    for (int64_t m = s.parallel.pp; m <= 16 * s.parallel.pp; m *= 2) {
      auto with_m = o;
      with_m.push_back({"parallel.micro_batches", std::to_string(m)});
      const auto vm = variant(tpl, s, with_m);
      if (!vm) continue;  // this schedule cannot run m micro-batches
      // Both the pacing rank's bubble over the pipeline's time (sim/step_terms.h).
      try {
        analytic.y.push_back(sim::analytic_step_terms(cost::step_estimate(*vm)).pipeline_bubble_fraction());
        analytic.x.push_back(static_cast<double>(m));
      } catch (const InputError&) {
        continue;
      }
      if (sch == s.parallel.schedule && simulable(vm, max_sim_ops)) {
        simulated.x.push_back(static_cast<double>(m));
        simulated.y.push_back(sim::simulate(*vm).stats.terms().pipeline_bubble_fraction());
      }
    }
    if (!analytic.x.empty()) c.series.push_back(std::move(analytic));
    if (!simulated.x.empty()) c.series.push_back(std::move(simulated));
  }
  std::string caption =
      "Pipeline bubble as a fraction of the pipeline's time, gradient sync excluded, as `step` prices it "
      "(the schedule's formula, DualPipe README table, Megatron, ZB-H1; the DualPipes' slot-level timeline "
      "up to 64 ranks), each schedule at its own chunk size (interleaved: 2 chunks per rank unless the "
      "scenario sets its own); dashed: the simulator's pacing rank, the same quantity (sim/README.md).";
  if (!skipped.empty()) {
    caption += " Not valid for this layer split:";
    for (const auto& n : skipped) caption += " " + n;
    caption += ".";
  }
  if (!c.series.empty()) sec.blocks.emplace_back(reports::figure("bubble", caption, c));
  return sec;
}

}  // namespace mhcsim::sweep::detail
