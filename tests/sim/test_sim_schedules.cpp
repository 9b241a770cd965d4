// Simulated schedules against the analytical pipeline table (deepseek-ai/DualPipe README,
// DESIGN.md "Pipeline schedules"): with free communication and uniform F/B/W, the simulated
// bubble and peak in-flight activations must equal the table's, for every PP and number of
// micro-batches tried; and every timeline must respect the stream and dependency invariants.
#include <catch2/catch.hpp>

#include <array>

#include "mhcsim/cost/pipeline.h"
#include "mhcsim/error.h"
#include "sim_checks.h"

using namespace mhcsim;
using namespace mhcsim::sim;
using test::make_spec;

namespace {

// The canonical timing of the DualPipe README / DESIGN.md: F = 1, full B = 2 (input 1 +
// weight 1), W = 1, F&B = 3 (free communication: overlap hides nothing).
PhasePrices canonical() { return uniform_prices(1.0, 1.0, 1.0); }

// The table's bubble and activations, from cost_models (cost/pipeline.h).
double table_bubble(Schedule kind, int32_t p, int32_t n, int32_t v = 1) {
  const cost::PhaseTimes t{1.0, 2.0, 1.0, 3.0};
  return cost::pipeline_bubble_seconds(kind, p, n, t, v);
}

void check_every_rank_idles(const Simulation& s, double bubble) {
  for (const auto& r : s.stats.ranks) {
    INFO("rank " << r.rank);
    CHECK(r.bubble_seconds == bubble);
  }
  CHECK(s.stats.max_bubble_seconds == bubble);
}

}  // namespace

TEST_CASE("1F1B: bubble (PP-1)(F+B), PP activations on the first rank") {
  const int32_t p = GENERATE(1, 2, 3, 4, 5, 8, 16);
  const int32_t n = GENERATE(1, 3, 8, 17, 32);
  INFO("pp " << p << " micro-batches " << n);
  const auto s = simulate(make_spec(Schedule::OneF1B, p, n), canonical());
  test::check_invariants(s);
  check_every_rank_idles(s, table_bubble(Schedule::OneF1B, p, n));
  CHECK(s.stats.step_seconds == 3.0 * n + table_bubble(Schedule::OneF1B, p, n));
  CHECK(s.stats.ranks[0].peak_activation_chunks ==
        cost::pipeline_activation_chunks(Schedule::OneF1B, p, n));
}

TEST_CASE("ZB-H1: bubble (PP-1)(F+B-2W), PP activations") {
  const int32_t p = GENERATE(1, 2, 3, 4, 5, 8, 16);
  // micro-batches: p, p + 1, 2p + 3, 4p
  const int32_t shape = GENERATE(0, 1, 2, 3);
  const int32_t n = std::array<int32_t, 4>{p, p + 1, 2 * p + 3, 4 * p}[static_cast<size_t>(shape)];
  INFO("pp " << p << " micro-batches " << n);
  const auto s = simulate(make_spec(Schedule::ZB1P, p, n), canonical());
  test::check_invariants(s);
  check_every_rank_idles(s, table_bubble(Schedule::ZB1P, p, n));
  CHECK(s.stats.max_peak_activation_chunks == cost::pipeline_activation_chunks(Schedule::ZB1P, p, n));
}

TEST_CASE("interleaved 1F1B: bubble (PP-1)(F+B) of a chunk, peak v*p + p - 1 chunks") {
  const int32_t p = GENERATE(2, 3, 4, 8);
  const int32_t v = GENERATE(2, 3, 4);
  const int32_t groups = GENERATE(2, 3, 5);
  const int32_t n = p * groups;
  INFO("pp " << p << " v " << v << " micro-batches " << n);
  const auto s = simulate(make_spec(Schedule::Interleaved1F1B, p, n, v), canonical());
  test::check_invariants(s);
  check_every_rank_idles(s, table_bubble(Schedule::Interleaved1F1B, p, n, v));
  // Megatron (Narayanan et al. 2021): activation factor 1 + (p-1)/(p v) of p micro-batches,
  // i.e. v p + p - 1 chunk activations on the first rank.
  CHECK(s.stats.ranks[0].peak_activation_chunks ==
        cost::pipeline_activation_chunks(Schedule::Interleaved1F1B, p, n, v));
}

TEST_CASE("DualPipe: bubble (PP/2-1)(F&B+B-3W) on every rank, independent of N; PP+1 activations") {
  const int32_t p = GENERATE(2, 4, 6, 8, 10, 16);
  const int32_t shape = GENERATE(0, 1, 2, 3);
  const int32_t n = std::array<int32_t, 4>{2 * p, 2 * p + 2, 4 * p, 6 * p + 4}[static_cast<size_t>(shape)];
  INFO("pp " << p << " micro-batches " << n);
  const auto s = simulate(make_spec(Schedule::DualPipe, p, n), canonical());
  test::check_invariants(s);
  check_every_rank_idles(s, table_bubble(Schedule::DualPipe, p, n));
  CHECK(s.stats.step_seconds == 3.0 * n + table_bubble(Schedule::DualPipe, p, n));
  for (const auto& r : s.stats.ranks)
    CHECK(r.peak_activation_chunks == cost::pipeline_activation_chunks(Schedule::DualPipe, p, n));
}

TEST_CASE("DualPipeV: bubble (PP/2-1)(F&B+B-3W) with PP = 2 x ranks; PP+1 activations") {
  const int32_t p = GENERATE(1, 2, 3, 4, 5, 8);
  const int32_t shape = GENERATE(0, 1, 2);
  const int32_t n = std::array<int32_t, 3>{2 * p, 2 * p + 1, 5 * p + 3}[static_cast<size_t>(shape)];
  INFO("ranks " << p << " micro-batches " << n);
  const auto s = simulate(make_spec(Schedule::DualPipeV, p, n), canonical());
  test::check_invariants(s);
  check_every_rank_idles(s, table_bubble(Schedule::DualPipeV, p, n));
  for (const auto& r : s.stats.ranks)
    CHECK(r.peak_activation_chunks == cost::pipeline_activation_chunks(Schedule::DualPipeV, p, n));
}

TEST_CASE("invariants hold with all-to-all, mHC stream and costly PP links") {
  const auto kind = GENERATE(Schedule::OneF1B, Schedule::ZB1P, Schedule::Interleaved1F1B,
                             Schedule::DualPipe, Schedule::DualPipeV);
  const int32_t p = GENERATE(2, 4, 8);
  const int32_t n = 4 * p;
  INFO(to_string(kind) << " pp " << p);
  const auto s = simulate(make_spec(kind, p, n, 2), test::moe_prices());
  test::check_invariants(s);
  CHECK(s.stats.step_seconds > 0);
  for (const auto& r : s.stats.ranks) {
    CHECK(r.bubble_seconds >= 0);
    CHECK(r.exposed_comm_seconds >= 0);
    CHECK(r.exposed_comm_seconds <= r.comm_busy_seconds);
    CHECK(r.peak_activation_bytes == 1000.0 * static_cast<double>(r.peak_activation_chunks));
  }
}

TEST_CASE("same input, bit-identical timeline") {
  const auto kind = GENERATE(Schedule::ZB1P, Schedule::DualPipe, Schedule::DualPipeV);
  const auto spec = make_spec(kind, 8, 24);
  const auto a = simulate(spec, test::moe_prices());
  const auto b = simulate(spec, test::moe_prices());
  CHECK(a.timeline.start_seconds == b.timeline.start_seconds);
  CHECK(a.timeline.end_seconds == b.timeline.end_seconds);
  CHECK(a.timeline.events == b.timeline.events);
}

TEST_CASE("hundreds to a thousand pipeline ranks simulate") {
  const auto s = simulate(make_spec(Schedule::OneF1B, 1024, 8), canonical());
  CHECK(s.stats.max_bubble_seconds == table_bubble(Schedule::OneF1B, 1024, 8));
  const auto d = simulate(make_spec(Schedule::DualPipe, 256, 512), canonical());
  CHECK(d.stats.max_bubble_seconds == table_bubble(Schedule::DualPipe, 256, 512));
}

TEST_CASE("schedules reject impossible pipeline shapes with a SpecError naming the key") {
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(simulate(make_spec(Schedule::DualPipe, 3, 12), canonical()),
                    Contains("parallel.pp") && Contains("even"));
  CHECK_THROWS_WITH(simulate(make_spec(Schedule::DualPipe, 4, 6), canonical()),
                    Contains("parallel.micro_batches") && Contains(">= 2 x pp"));
  CHECK_THROWS_WITH(simulate(make_spec(Schedule::DualPipe, 4, 9), canonical()),
                    Contains("parallel.micro_batches") && Contains("even"));
  CHECK_THROWS_WITH(simulate(make_spec(Schedule::DualPipeV, 4, 7), canonical()),
                    Contains("parallel.micro_batches"));
  CHECK_THROWS_WITH(simulate(make_spec(Schedule::Interleaved1F1B, 4, 6, 2), canonical()),
                    Contains("multiple of pp"));
  CHECK_THROWS_AS(simulate(make_spec(Schedule::ZB1P, 4, 3), canonical()), SpecError);
  CHECK_THROWS_AS(simulate(make_spec(Schedule::OneF1B, 0, 3), canonical()), SpecError);
  CHECK_THROWS_AS(simulate(make_spec(Schedule::OneF1B, 2, 0), canonical()), SpecError);
}
