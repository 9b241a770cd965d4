#include "mhcsim/cost/pipeline.h"

#include <algorithm>
#include <string>

#include "check.h"

namespace mhcsim::cost {

namespace {
double d(int64_t v) { return static_cast<double>(v); }

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
    default: break;
  }
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
  switch (s) {
    case Schedule::OneF1B:
    case Schedule::Interleaved1F1B: return d(pp - 1) * (t.f + t.b);
    case Schedule::ZB1P: return d(pp - 1) * (t.f + t.b - 2 * t.w);
    case Schedule::DualPipe: return d(pp / 2 - 1) * (t.fb + t.b - 3 * t.w);
    case Schedule::DualPipeV: return d(pp - 1) * (t.fb + t.b - 3 * t.w);  // PP = 2 x ranks
  }
  return 0;
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

int64_t pipeline_activation_chunks(Schedule s, int64_t pp, int64_t m, int64_t v) {
  require_shape(s, pp, m, v);
  switch (s) {
    case Schedule::OneF1B:
    case Schedule::ZB1P: return std::min(pp, m);
    case Schedule::Interleaved1F1B: return v * pp + pp - 1;
    case Schedule::DualPipe: return pp + 1;
    case Schedule::DualPipeV: return 2 * pp + 1;
  }
  return 0;
}

}  // namespace mhcsim::cost
