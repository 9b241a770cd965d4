// The Chrome trace of a simulated step is valid trace-event JSON that Perfetto opens: one pid
// per rank named by metadata, one tid per used stream, complete events with ts/dur in us.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "mhcsim/sim/trace.h"
#include "sim_checks.h"

using namespace mhcsim;
using namespace mhcsim::sim;

TEST_CASE("chrome trace: metadata, one X event per timed op, microseconds") {
  auto prices = test::moe_prices();
  for (double* x : {&prices.attn_forward_seconds, &prices.mlp_forward_seconds,
                    &prices.mhc_post_forward_seconds, &prices.dispatch_seconds,
                    &prices.combine_seconds, &prices.pp_send_seconds})
    *x *= 1e-3;  // ms-scale pieces
  const auto s = simulate(test::make_spec(Schedule::DualPipe, 4, 8), prices);
  const auto path = std::filesystem::temp_directory_path() / "mhcsim_test_trace.json";
  write_chrome_trace_file(s, path);
  std::ifstream in(path);
  const auto doc = nlohmann::json::parse(in);
  std::filesystem::remove(path);

  const auto& events = doc.at("traceEvents");
  std::set<int> named_pids;
  std::set<std::pair<int, int>> named_tids, used_tids;
  size_t complete = 0;
  double last_end_us = 0;
  for (const auto& e : events) {
    const std::string ph = e.at("ph");
    if (ph == "M") {
      if (e.at("name") == "process_name") named_pids.insert(e.at("pid").get<int>());
      if (e.at("name") == "thread_name")
        named_tids.insert({e.at("pid").get<int>(), e.at("tid").get<int>()});
      continue;
    }
    REQUIRE(ph == "X");
    ++complete;
    used_tids.insert({e.at("pid").get<int>(), e.at("tid").get<int>()});
    CHECK(e.at("dur").get<double>() >= 0);
    last_end_us = std::max(last_end_us, e.at("ts").get<double>() + e.at("dur").get<double>());
  }
  CHECK(named_pids.size() == 4);
  for (const auto& t : used_tids) CHECK(named_tids.count(t) == 1);
  size_t timed_ops = 0;
  for (const auto& l : s.graph.label) timed_ops += l.unit != UnitKind::Sync;
  CHECK(complete == timed_ops);
  CHECK_THAT(last_end_us, Catch::Matchers::WithinRel(s.stats.step_seconds * 1e6, 1e-6));
}
