// Pipeline bubble and memory factors (deepseek-ai/DualPipe README table, DESIGN.md), at the
// README's canonical timing F = 1, B = 2, W = 1, F&B = 3.
#include <catch2/catch.hpp>

#include "mhcsim/cost/pipeline.h"
#include "mhcsim/error.h"

using namespace mhcsim;
using namespace mhcsim::cost;

namespace {
const PhaseTimes kCanonical{1.0, 2.0, 1.0, 3.0};
}

TEST_CASE("bubble formulas at F=1, B=2, W=1, F&B=3") {
  const int64_t p = GENERATE(2, 4, 8, 16);
  const int64_t m = 4 * p;
  const double pd = static_cast<double>(p);
  CHECK(pipeline_bubble_seconds(Schedule::OneF1B, p, m, kCanonical) == 3 * (pd - 1));
  CHECK(pipeline_bubble_seconds(Schedule::ZB1P, p, m, kCanonical) == pd - 1);
  CHECK(pipeline_bubble_seconds(Schedule::Interleaved1F1B, p, m, kCanonical, 2) == 3 * (pd - 1));
  CHECK(pipeline_bubble_seconds(Schedule::DualPipe, p, m, kCanonical) == (pd / 2 - 1) * 2);
  CHECK(pipeline_bubble_seconds(Schedule::DualPipeV, p, m, kCanonical) == (pd - 1) * 2);
}

TEST_CASE("interleaving divides the 1F1B bubble fraction by v: (p-1)/(v m)") {
  const int64_t p = 8, m = 32, v = GENERATE(1, 2, 4);
  // per-chunk times shrink by v when a stage is cut into v chunks
  const PhaseTimes chunk{1.0 / v, 2.0 / v, 1.0 / v, 3.0 / v};
  const double bubble = pipeline_bubble_seconds(Schedule::Interleaved1F1B, p, m, chunk, v);
  const double busy = pipeline_busy_seconds(Schedule::Interleaved1F1B, p, m, chunk, v);
  CHECK_THAT(bubble / busy, Catch::Matchers::WithinRel(7.0 / (static_cast<double>(v) * 32), 1e-12));
}

TEST_CASE("DualPipe's bubble does not grow with the number of micro-batches") {
  const double a = pipeline_bubble_seconds(Schedule::DualPipe, 8, 16, kCanonical);
  const double b = pipeline_bubble_seconds(Schedule::DualPipe, 8, 160, kCanonical);
  CHECK(a == b);
  CHECK(pipeline_bubble_fraction(Schedule::DualPipe, 8, 160, kCanonical) <
        pipeline_bubble_fraction(Schedule::DualPipe, 8, 16, kCanonical));
}

TEST_CASE("parameters and activations per rank (README table)") {
  CHECK(pipeline_parameter_factor(Schedule::DualPipe) == 2.0);
  CHECK(pipeline_parameter_factor(Schedule::DualPipeV) == 1.0);
  CHECK(pipeline_parameter_factor(Schedule::OneF1B) == 1.0);
  CHECK(pipeline_activation_chunks(Schedule::OneF1B, 8, 32) == 8);
  CHECK(pipeline_activation_chunks(Schedule::OneF1B, 8, 3) == 3);
  CHECK(pipeline_activation_chunks(Schedule::ZB1P, 8, 32) == 8);
  CHECK(pipeline_activation_chunks(Schedule::Interleaved1F1B, 8, 32, 2) == 2 * 8 + 8 - 1);
  CHECK(pipeline_activation_chunks(Schedule::DualPipe, 8, 32) == 9);
  CHECK(pipeline_activation_chunks(Schedule::DualPipeV, 8, 32) == 17);
  CHECK(pipeline_chunks(Schedule::DualPipe, 16) == 16);
  CHECK(pipeline_chunks(Schedule::DualPipeV, 16) == 32);
  CHECK(pipeline_chunks(Schedule::Interleaved1F1B, 16, 3) == 48);
}

TEST_CASE("impossible pipeline shapes throw SpecError naming the key") {
  CHECK_THROWS_WITH(pipeline_bubble_seconds(Schedule::DualPipe, 7, 28, kCanonical), Catch::Contains("parallel.pp"));
  CHECK_THROWS_WITH(pipeline_bubble_seconds(Schedule::DualPipe, 8, 15, kCanonical),
                    Catch::Contains("parallel.micro_batches"));
  CHECK_THROWS_WITH(pipeline_bubble_seconds(Schedule::DualPipeV, 8, 8, kCanonical),
                    Catch::Contains("parallel.micro_batches"));
  CHECK_THROWS_WITH(pipeline_bubble_seconds(Schedule::OneF1B, 0, 8, kCanonical), Catch::Contains("parallel.pp"));
  CHECK_THROWS_AS(pipeline_bubble_seconds(Schedule::OneF1B, 4, 8, PhaseTimes{1, 1, 2, 2}), SpecError);
}

TEST_CASE("bubbles are never negative, even where weight gradients dominate") {
  // W > (F&B + B) / 3 (tens of thousands of small experts) drives the README formulas below 0;
  // deferred W can only fill idle time that exists.
  const PhaseTimes w_heavy{1, 10, 9.5, 11};
  for (const auto s : {Schedule::ZB1P, Schedule::DualPipe, Schedule::DualPipeV})
    CHECK(pipeline_bubble_seconds(s, 8, 32, w_heavy) >= 0);
}

TEST_CASE("the busiest rank runs the last stage beside the middle chunks its schedule gives it") {
  // middle chunk 1 s of F + B, last stage (LM head) 1.5 s; 4 ranks, 16 micro-batches.
  const auto busy = [](Schedule s, int64_t v = 1) {
    const auto r = pipeline_busiest_rank(s, 4, 16, 1.0, 1.5, v);
    return r.middle * 1.0 + r.last * 1.5;
  };
  CHECK(busy(Schedule::OneF1B) == 16 * 1.5);
  CHECK(busy(Schedule::ZB1P) == 16 * 1.5);
  CHECK(busy(Schedule::Interleaved1F1B, 3) == 16 * (2 * 1.0 + 1.5));
  CHECK(busy(Schedule::DualPipe) == 8 * 1.0 + 8 * 1.5);  // ranks 0 and 3, one direction each
  CHECK(busy(Schedule::DualPipeV) == 16 * (1.0 + 1.5));  // rank 0: stages 0 and 7
  // A lighter last stage leaves a rank of middle chunks the busiest.
  const auto light = pipeline_busiest_rank(Schedule::Interleaved1F1B, 4, 16, 1.0, 0.5, 3);
  CHECK(light.middle == 48);
  CHECK(light.last == 0);
}
