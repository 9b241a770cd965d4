#include "mhcsim/cost/pipeline.h"

#include <algorithm>
#include <string>

#include "as_double.h"
#include "check.h"
#include "mhcsim/schedules/schedule.h"

namespace mhcsim::cost {

namespace {

// The shapes the reference implementations accept (DualPipe README, dualpipe.py/dualpipev.py).
void require_shape(Schedule s, int64_t pp, int64_t m, int64_t v) {
  check(pp >= 1, "parallel.pp", "must be >= 1");
  check(m >= 1, "parallel.micro_batches", "must be >= 1");
  check(v >= 1, "parallel.virtual_stages", "must be >= 1");
  switch (s) {
    case Schedule::DualPipe:
      check(pp % 2 == 0, "parallel.pp", "DualPipe needs an even number of ranks");
      check(m % 2 == 0 && m >= 2 * pp, "parallel.micro_batches",
            [&] { return "DualPipe needs an even number >= 2 x pp (" + std::to_string(2 * pp) + ")"; });
      break;
    case Schedule::DualPipeV:
      check(m >= 2 * pp, "parallel.micro_batches",
            [&] { return "DualPipeV needs >= 2 x pp (" + std::to_string(2 * pp) + ")"; });
      break;
    default:
      break;
  }
}

// The generators' spec of the shape the formulas take (schedules::warmup_forwards counts for both).
schedules::ScheduleSpec spec_of(Schedule s, int64_t pp, int64_t m, int64_t v, bool combined_1f1b) {
  return {s, static_cast<int32_t>(pp), static_cast<int32_t>(m), static_cast<int32_t>(v), combined_1f1b};
}

void require_times(const PhaseTimes& t) {
  check(t.f >= 0 && t.b >= 0 && t.w >= 0 && t.fb >= 0, "phase_times", "must be >= 0");
  check(t.w <= t.b, "phase_times.w", "weight-gradient part cannot exceed the full backward");
}

}  // namespace

// deepseek-ai/DualPipe README "at the same number of PP stages"; Megatron interleaving.
double pipeline_bubble_seconds(Schedule s, int64_t pp, int64_t m, const PhaseTimes& t, int64_t v) {
  require_shape(s, pp, m, v);
  require_times(t);
  double bubble = 0;
  switch (s) {
    case Schedule::OneF1B:
    case Schedule::Interleaved1F1B:
      bubble = d(pp - 1) * (t.f + t.b);
      break;
    case Schedule::ZB1P:
      bubble = d(pp - 1) * (t.f + t.b - 2 * t.w);
      break;
    case Schedule::DualPipe:
    case Schedule::DualPipeV: {
      const double k = s == Schedule::DualPipe ? d(pp / 2 - 1) : d(pp - 1);  // DualPipeV: PP = 2 x ranks
      bubble = k * (t.fb + t.b - 3 * t.w);
      // The README's formula is the reference schedules' timeline (dualpipe.py, dualpipev.py,
      // which sim/ replays op for op) at F = B_input. Elsewhere the pacing rank's idle time
      // differs by a closed form, exact for W <= B_input (tests/sim/test_sim_schedules.cpp checks
      // it over a grid of ranks, micro-batches and F, B_input, W): a forward longer than the
      // input gradient stretches each of the k + 1 warm-up steps; a shorter one lets one F hide
      // in the cool-down, up to k x (B_input - F).
      const double bi = t.b - t.w;
      if (t.w <= bi) bubble += t.f > bi ? (k > 0 ? (k + 1) * (t.f - bi) : 0.0) : -std::min(t.f, k * (bi - t.f));
      break;
    }
  }
  return std::max(0.0, bubble);
}

RankChunks pipeline_busiest_rank(Schedule s, int64_t pp, int64_t m, double middle, double last, int64_t v) {
  require_shape(s, pp, m, v);
  check(middle >= 0 && last >= 0, "phase_times", "must be >= 0");
  const int64_t last_stage = pipeline_chunks(s, pp, v) - 1;
  // Every micro-batch visits each stage a rank holds, but in DualPipe each copy serves one
  // direction: half the micro-batches.
  const double visits = s == Schedule::DualPipe ? d(m) / 2 : d(m);
  const auto busy = [&](const RankChunks& r) { return r.middle * middle + r.last * last; };
  RankChunks busiest;
  for (int64_t r = 0; r < pp; ++r) {
    RankChunks held;
    for_each_stage_of_rank(s, pp, v, r,
                           [&](int64_t stage) { (stage == last_stage ? held.last : held.middle) += visits; });
    if (r == 0 || busy(held) > busy(busiest) || (busy(held) == busy(busiest) && held.last > busiest.last))
      busiest = held;
  }
  return busiest;
}

PairedSlots dual_pipe_slots(Schedule s, int64_t pp, int64_t m, int64_t h) {
  check(s == Schedule::DualPipe || s == Schedule::DualPipeV, "parallel.schedule", "not a DualPipe schedule");
  require_shape(s, pp, m, 1);
  const bool v = s == Schedule::DualPipeV;
  const int64_t half = v ? pp : pp / 2, chunks = v ? m : m / 2;
  check(h >= 0 && h < half, "rank", "outside the pipeline");
  const double outer = d(half - h - 1), middle = h == half - 1 ? 1.0 : 0.0;
  PairedSlots r;
  r.lone_forward = 3 * outer + 2 * d(h + 1) + middle;
  r.lone_backward = r.lone_forward;
  r.pairs = 2 * d(chunks) - r.lone_forward;
  return r;
}

PairedSlots combined_1f1b_slots(Schedule s, int64_t pp, int64_t m, int64_t v) {
  require_shape(s, pp, m, v);
  const auto spec = spec_of(s, pp, m, v, /*combined_1f1b=*/true);
  schedules::validate(spec);
  PairedSlots r;
  r.lone_forward = schedules::warmup_forwards(spec, static_cast<int32_t>(pp - 1));
  r.lone_backward = r.lone_forward;
  r.pairs = d(m) * d(stages_per_rank(s, v)) - r.lone_forward;
  return r;
}

double pipeline_busy_seconds(Schedule s, int64_t pp, int64_t m, const PhaseTimes& t, int64_t v) {
  require_shape(s, pp, m, v);
  require_times(t);
  return d(m) * d(stages_per_rank(s, v)) * (t.f + t.b);
}

double pipeline_bubble_fraction(Schedule s, int64_t pp, int64_t m, const PhaseTimes& t, int64_t v) {
  const double bubble = pipeline_bubble_seconds(s, pp, m, t, v);
  const double total = bubble + pipeline_busy_seconds(s, pp, m, t, v);
  return total > 0 ? bubble / total : 0.0;
}

int64_t pipeline_chunks(Schedule s, int64_t pp, int64_t v) {
  check(pp >= 1, "parallel.pp", "must be >= 1");
  check(v >= 1, "parallel.virtual_stages", "must be >= 1");
  return pp * stages_per_rank(s, v);
}

double pipeline_parameter_factor(Schedule s) { return s == Schedule::DualPipe ? 2.0 : 1.0; }

int64_t pipeline_activation_chunks(Schedule s, int64_t pp, int64_t m, int64_t v, bool combined_1f1b, int64_t rank) {
  require_shape(s, pp, m, v);
  check(rank >= 0 && rank < pp, "parallel.pp", "a pipeline rank is in [0, pp)");
  switch (s) {
    case Schedule::OneF1B:
    case Schedule::ZB1P:
    case Schedule::Interleaved1F1B: {
      // A rank holds its warm-up forwards and the next one's before its first backward frees one.
      return std::min<int64_t>(
          schedules::warmup_forwards(spec_of(s, pp, m, v, combined_1f1b), static_cast<int32_t>(rank)) + 1,
          m * stages_per_rank(s, v));
    }
    case Schedule::DualPipe:
      return pp + 1;
    case Schedule::DualPipeV:
      return 2 * pp + 1;
  }
  return 0;
}

}  // namespace mhcsim::cost
