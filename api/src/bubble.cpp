#include "mhcsim/api/bubble.h"

#include <fmt/format.h>

#include <array>
#include <string>

#include "mhcsim/cost/memory.h"
#include "mhcsim/cost/step.h"
#include "mhcsim/error.h"
#include "mhcsim/scenarios/schedule_rules.h"
#include "mhcsim/units.h"

namespace mhcsim::api {

reports::Table bubble_table(const Scenario& base) {
  reports::Table t("pipeline schedules at PP " + std::to_string(base.parallel.pp) + ", " +
                       std::to_string(base.parallel.micro_batches) +
                       " micro-batches (per chunk the pipeline fills through: F and B as a lone slot runs them, "
                       "all-to-alls whole; W; F&B as an F&B slot pairs them in the DualPipes and combined "
                       "1F1B, else F + B; bubble as step prices it, the DualPipes' on the slot timeline with "
                       "the last stage at its own price)",
                   {{"schedule", "schedule"},
                    {"layers_per_chunk", "layers/chunk"},
                    {"f_s", "F (ms)", 2, 1e3},
                    {"b_s", "B (ms)", 2, 1e3},
                    {"w_s", "W (ms)", 2, 1e3},
                    {"fb_s", "F&B (ms)", 2, 1e3},
                    {"bubble_s", "bubble (s)", 3},
                    {"bubble_fraction", "bubble (%)", 2, 100.0},
                    {"step_s", "step (s)", 3},
                    {"parameter_factor", "params (x)", 0},
                    {"activation_chunks", "act (chunks)"},
                    {"activation_bytes", "act (GiB)", 2, 1.0 / kGiB},
                    {"note", "note"}});
  constexpr std::array kSchedules{Schedule::OneF1B, Schedule::Interleaved1F1B, Schedule::ZB1P, Schedule::DualPipe,
                                  Schedule::DualPipeV};
  for (const Schedule sched : kSchedules) {
    Scenario s = base;
    s.parallel.schedule = sched;
    // Combined 1F1B is a way to run the scenario's own schedule, not the others.
    if (sched != base.parallel.schedule) s.parallel.combined_1f1b = false;
    if (sched == Schedule::Interleaved1F1B && s.parallel.virtual_stages < 2) s.parallel.virtual_stages = 2;
    const std::string name(to_string(sched));
    // A schedule the scenario check would refuse at this shape is a row with the reason, as it
    // is in `step` (not a price for a run that cannot happen).
    if (const auto problem = scenarios::schedule_problem(s.parallel, false)) {
      t.add_row({name, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, problem->key + ": " + problem->message});
      continue;
    }
    try {
      const auto e = cost::step_estimate(s);
      // Activations as `memory` counts them: the chunks in flight, each of a full chunk's layers.
      const auto memory = cost::training_memory(s);
      std::string note = sched == Schedule::Interleaved1F1B ? "v = " + std::to_string(s.parallel.virtual_stages) : "";
      if (s.parallel.combined_1f1b) note += std::string(note.empty() ? "" : "; ") + "combined 1F1B";
      if (e.layers_priced != s.model.layers)
        note += fmt::format("{}{} layers priced of {} (uniform chunks)", note.empty() ? "" : "; ", e.layers_priced,
                            s.model.layers);
      t.add_row({name, e.layers_per_chunk, e.phases.f, e.phases.b, e.phases.w, e.phases.fb, e.bubble_seconds,
                 e.bubble_fraction(), e.step_seconds, cost::pipeline_parameter_factor(sched), memory.activation_chunks,
                 memory.activation_bytes, note});
    } catch (const SpecError& err) {
      t.add_row({name, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, std::string(err.what())});
    }
  }
  return t;
}

}  // namespace mhcsim::api
