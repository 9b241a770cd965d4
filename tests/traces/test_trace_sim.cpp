// The comparison against the simulator (issue 8): a trace the simulator wrote, read back,
// matches the simulation to ~0% (plain and gzipped), and the metrics agree with sim/metrics.h's
// own per-rank statistics.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

#include "mhcsim/sim/simulate.h"
#include "mhcsim/sim/trace.h"
#include "mhcsim/traces/compare.h"
#include "trace_helpers.h"

using namespace mhcsim;
using namespace mhcsim::traces;
using namespace mhcsim::traces::test;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

// A DualPipe step with every stream in use (EP all-to-all, mHC on the high-priority stream,
// PP links), pieces in milliseconds like a real chunk.
sim::Simulation simulated_step() {
  sim::PhasePrices p;
  p.attn_forward_seconds = 3e-3;
  p.mlp_forward_seconds = 4e-3;
  p.mhc_post_forward_seconds = 1e-3;
  p.dispatch_seconds = 3e-3;
  p.combine_seconds = 5e-3;
  p.attn_backward_input_seconds = 3e-3;
  p.attn_backward_weight_seconds = 2e-3;
  p.mlp_backward_input_seconds = 4e-3;
  p.mlp_backward_weight_seconds = 4e-3;
  p.pp_send_seconds = 2e-3;
  sim::ScheduleSpec spec;
  spec.kind = Schedule::DualPipe;
  spec.ranks = 4;
  spec.micro_batches = 8;
  return sim::simulate(spec, p);
}

}  // namespace

TEST_CASE("round trip: the simulator's own trace reads back to ~0% error, plain and gzipped") {
  const auto s = simulated_step();
  const auto simulated = measure(from_simulation(s), 0, s.graph.layout.ranks);
  std::ostringstream trace;
  sim::write_chrome_trace(s, trace);
  for (const std::string& text : {trace.str(), gzip(trace.str())}) {
    const auto measured_timeline = timeline_of(text);
    REQUIRE(measured_timeline.ranks == s.graph.layout.ranks);
    const auto c = compare(measure(measured_timeline, 0, measured_timeline.ranks), simulated);
    CHECK(c.rows.size() > 10);
    for (const auto& r : c.rows) {
      INFO(r.metric);
      REQUIRE(r.error_pct);
      CHECK(std::abs(*r.error_pct) < 1e-3);  // ts/dur are written to 1 ns on ms-scale ops
    }
  }
}

TEST_CASE("metrics agree with the simulator's own per-rank statistics") {
  const auto s = simulated_step();
  const auto m = measure(from_simulation(s), 0, s.graph.layout.ranks);
  const auto& ranks = s.stats.ranks;
  auto mean = [&](double sim::RankStats::*field) {
    double sum = 0;
    for (const auto& r : ranks) sum += r.*field;
    return sum / static_cast<double>(ranks.size());
  };
  CHECK_THAT(m.step_seconds, WithinRel(s.stats.step_seconds, 1e-12));
  CHECK_THAT(m.compute_busy_seconds, WithinRel(mean(&sim::RankStats::compute_busy_seconds), 1e-12));
  CHECK_THAT(m.comm_busy_seconds, WithinRel(mean(&sim::RankStats::comm_busy_seconds), 1e-12));
  CHECK_THAT(m.exposed_comm_seconds, WithinRel(mean(&sim::RankStats::exposed_comm_seconds), 1e-9));
  // The bubble as step and simulate define it (sim/step_terms.h): nothing runs on the rank.
  double most = 0;
  for (const auto& r : ranks) most = std::max(most, r.bubble_seconds);
  CHECK_THAT(m.max_bubble_seconds, WithinAbs(most, 1e-9 * s.stats.step_seconds));
  CHECK_THAT(m.mean_bubble_seconds, WithinAbs(mean(&sim::RankStats::bubble_seconds), 1e-9 * s.stats.step_seconds));
  CHECK(class_busy(m, OpClass::Dispatch) > 0);
  CHECK(class_busy(m, OpClass::Mhc) > 0);
  CHECK(class_busy(m, OpClass::PpComm) > 0);
  CHECK(role_busy(m, 0, StreamRole::HighPriority) > 0);  // the mHC stream is recognised by its kernels
}

namespace {
// The events of one rank of the simulator's trace (it writes one event per line), as a trace
// of that rank alone.
std::string one_rank_trace(const std::string& trace, int32_t rank) {
  const std::string pid = "\"pid\":" + std::to_string(rank) + ",";
  std::istringstream lines(trace);
  std::string line, events;
  while (std::getline(lines, line)) {
    if (line.empty() || line.front() != '{' || line.find(pid) == std::string::npos) continue;
    if (line.back() == ',') line.pop_back();
    events += (events.empty() ? "" : ",\n") + line;
  }
  return "{\"traceEvents\":[\n" + events + "\n]}\n";
}
}  // namespace

// One rank's trace against the same rank of the simulation: both steps span that rank's own
// kernels (the simulated one spanned every rank's: a probe's rank-5 cut read +3.4% on the step
// and +36% on the bubble of the simulator's own trace).
TEST_CASE("one rank's trace compares with the same rank: its first to last kernel on both sides") {
  const auto s = simulated_step();
  std::ostringstream trace;
  sim::write_chrome_trace(s, trace);
  for (int32_t rank = 0; rank < s.graph.layout.ranks; ++rank) {
    const auto measured_timeline = timeline_of(one_rank_trace(trace.str(), rank));
    REQUIRE(measured_timeline.ranks == 1);
    const auto measured = measure(measured_timeline, 0, 1);
    const auto simulated = measure(from_simulation(s), rank, 1);
    INFO("rank " << rank << ": measured step " << measured.step_seconds << " s, simulated " << simulated.step_seconds);
    CHECK(measured.step_seconds <= s.stats.step_seconds);
    CHECK_THAT(measured.step_seconds, WithinRel(simulated.step_seconds, 1e-6));
    CHECK_THAT(measured.mean_bubble_seconds, WithinAbs(simulated.mean_bubble_seconds, 1e-6 * s.stats.step_seconds));
  }
  // A middle rank starts after rank 0 and ends before the step does.
  CHECK(measure(from_simulation(s), 1, 1).step_seconds < s.stats.step_seconds);
}
