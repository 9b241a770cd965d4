// The slot-level timeline (schedules/slot_timeline.h), which `step` reads the DualPipes' bubble
// off: equal to the op-level simulator where communication is free, to the README formula
// where the stages are identical, and its DualPipe shortcut (2 x ranks micro-batches, extended)
// equal to whole runs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

#include "mhcsim/cost/pipeline.h"
#include "mhcsim/error.h"
#include "mhcsim/schedules/slot_timeline.h"
#include "mhcsim/sim/simulate.h"

using namespace mhcsim;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

struct Phases {
  double f, bi, w;
};

schedules::SlotPrices slots_of(const Phases& p, double a2a = 0) {
  return {p.f + a2a, p.bi + p.w + a2a, p.bi + a2a, p.w};
}

// Free communication: a lone slot and an F&B pair take their compute.
schedules::StageSlotPrices free_comm(const Phases& middle, const Phases& last) {
  schedules::StageSlotPrices s{slots_of(middle), slots_of(last), {}};
  const Phases* of[2] = {&middle, &last};
  for (int f = 0; f < 2; ++f)
    for (int b = 0; b < 2; ++b) s.forward_backward_seconds[f][b] = of[f]->f + of[b]->bi + of[b]->w;
  return s;
}

double least_idle(const schedules::SlotTimeline& t, int32_t ranks) {
  double least = std::numeric_limits<double>::infinity();
  for (int32_t r = 0; r < ranks; ++r) least = std::min(least, t.idle_seconds(r));
  return least;
}

}  // namespace

TEST_CASE("slot timeline: the simulator's timeline where communication is free, every schedule") {
  const auto kind =
      GENERATE(Schedule::OneF1B, Schedule::ZB1P, Schedule::Interleaved1F1B, Schedule::DualPipe, Schedule::DualPipeV);
  std::mt19937 rng(static_cast<unsigned>(kind) + 7);
  std::uniform_real_distribution<double> u(0.25, 3.0);
  for (int trial = 0; trial < 40; ++trial) {
    const int32_t ranks = kind == Schedule::DualPipe ? 2 * (1 + trial % 8) : 1 + trial % 12;
    const int32_t v = kind == Schedule::Interleaved1F1B ? 1 + trial % 3 : 1;
    const int32_t m = (kind == Schedule::DualPipe || kind == Schedule::DualPipeV ? 2 : 1) * ranks * (1 + trial % 3) +
                      (kind == Schedule::DualPipe ? 0 : ranks * (trial % 2));
    const Phases middle{u(rng), u(rng), u(rng) / 2}, last{u(rng), u(rng), u(rng) / 2};
    const sim::ScheduleSpec spec{kind, ranks, m, v};
    INFO(to_string(kind) << " ranks " << ranks << " v " << v << " micro-batches " << m);
    sim::StagePrices prices{sim::uniform_prices(middle.f, middle.bi, middle.w),
                            sim::uniform_prices(last.f, last.bi, last.w), 0.0};
    const auto s = sim::simulate(spec, prices);
    const auto t = schedules::slot_timeline(s.program, free_comm(middle, last));
    CHECK_THAT(t.makespan_seconds, WithinRel(s.stats.step_seconds, 1e-12));
    for (const auto& r : s.stats.ranks) {
      CHECK_THAT(t.busy_seconds[static_cast<size_t>(r.rank)], WithinRel(r.compute_busy_seconds, 1e-12));
      CHECK_THAT(t.idle_seconds(r.rank), WithinAbs(r.bubble_seconds, 1e-9 * t.makespan_seconds));
    }
  }
}

TEST_CASE("slot timeline: identical stages give the DualPipe README formula (cost/pipeline.h)") {
  const auto kind = GENERATE(Schedule::DualPipe, Schedule::DualPipeV);
  const int32_t p = GENERATE(2, 4, 8, 16);
  const double f = GENERATE(0.5, 1.0, 3.0), bi = GENERATE(0.5, 1.0, 4.0), w = GENERATE(0.25, 0.5);
  const Phases ph{f, bi, w};
  const int32_t m = 6 * p;
  INFO(to_string(kind) << " ranks " << p << " F " << f << " B_input " << bi << " W " << w);
  const cost::PhaseTimes t{f, bi + w, w, f + bi + w};
  CHECK_THAT(schedules::dual_pipe_least_idle_seconds({kind, p, m, 1}, free_comm(ph, ph)),
             WithinAbs(cost::pipeline_bubble_seconds(kind, p, m, t), 1e-9));
}

TEST_CASE("slot timeline: the DualPipes' least idle from 2 x ranks micro-batches equals whole runs") {
  const auto kind = GENERATE(Schedule::DualPipe, Schedule::DualPipeV);
  std::mt19937 rng(kind == Schedule::DualPipe ? 11 : 12);
  std::uniform_real_distribution<double> u(0.2, 3.0);
  for (int trial = 0; trial < 300; ++trial) {
    const int32_t ranks = kind == Schedule::DualPipe ? 2 * (1 + trial % 8) : 1 + trial % 12;
    const int32_t step = kind == Schedule::DualPipe ? 2 : 1;
    const int32_t m = 2 * ranks + step * (trial % 23);
    // All-to-all exposed whole in lone slots and partly in pairs, as step prices them.
    const double a2a_middle = trial % 3 ? u(rng) / 2 : 0, a2a_last = trial % 3 ? u(rng) / 2 : 0;
    const Phases middle{u(rng), u(rng), u(rng) * 0.8}, last{u(rng), u(rng), u(rng) * 0.8};
    schedules::StageSlotPrices prices{slots_of(middle, a2a_middle), slots_of(last, a2a_last), {}};
    const Phases* of[2] = {&middle, &last};
    for (int f = 0; f < 2; ++f)
      for (int b = 0; b < 2; ++b)
        prices.forward_backward_seconds[f][b] = of[f]->f + of[b]->bi + of[b]->w + (trial % 3 ? u(rng) / 4 : 0);
    const schedules::ScheduleSpec spec{kind, ranks, m, 1};
    INFO(to_string(kind) << " ranks " << ranks << " micro-batches " << m << " trial " << trial);
    const auto whole = schedules::slot_timeline(schedules::generate_program(spec), prices);
    CHECK_THAT(schedules::dual_pipe_least_idle_seconds(spec, prices),
               WithinAbs(least_idle(whole, ranks), 1e-9 * whole.makespan_seconds));
  }
}

TEST_CASE("slot timeline: bad prices and other schedules are refused") {
  const Phases ph{1, 1, 0.5};
  auto prices = free_comm(ph, ph);
  const auto program = schedules::generate_program({Schedule::DualPipe, 4, 8, 1});
  prices.middle.weight_seconds = -1;
  CHECK_THROWS_AS(schedules::slot_timeline(program, prices), std::invalid_argument);
  prices = free_comm(ph, ph);
  prices.forward_backward_seconds[1][0] = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(schedules::slot_timeline(program, prices), std::invalid_argument);
  CHECK_THROWS_AS(schedules::dual_pipe_least_idle_seconds({Schedule::OneF1B, 4, 8, 1}, free_comm(ph, ph)),
                  std::invalid_argument);
  CHECK_THROWS_AS(schedules::dual_pipe_least_idle_seconds({Schedule::DualPipe, 4, 6, 1}, free_comm(ph, ph)), SpecError);
  const int32_t too_many = schedules::kMaxLeastIdleRanks + 2;
  CHECK_THROWS_AS(
      schedules::dual_pipe_least_idle_seconds({Schedule::DualPipe, too_many, 2 * too_many, 1}, free_comm(ph, ph)),
      std::invalid_argument);
}
