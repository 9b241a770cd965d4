// The Chrome trace of a simulated step is valid trace-event JSON that Perfetto opens: one pid
// per rank named by metadata, one tid per used stream, complete events with ts/dur in us from
// integer nanoseconds (no two slices of one thread overlap once read back the way Perfetto
// reads them), micro-batch and chunk ids in args, flow arrows from sends to receives, gzip
// when the name ends in .gz, and the counts the writer returns equal what the file holds.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "mhcsim/scenarios/load.h"
#include "mhcsim/sim/trace.h"
#include "sim_checks.h"

using namespace mhcsim;
using namespace mhcsim::sim;

namespace {

// Durations that are not round in microseconds, so that ts and dur rounded apart would
// overlap by a nanosecond here and there (issue 15).
PhasePrices odd_prices() {
  auto prices = test::moe_prices();
  for (double* x : {&prices.attn_forward_seconds, &prices.mlp_forward_seconds, &prices.mhc_post_forward_seconds,
                    &prices.dispatch_seconds, &prices.combine_seconds, &prices.attn_backward_input_seconds,
                    &prices.attn_backward_weight_seconds, &prices.mlp_backward_input_seconds,
                    &prices.mlp_backward_weight_seconds, &prices.pp_send_seconds})
    *x *= 1.2345678912e-3;
  prices.a2a_overlap = 0.7;
  return prices;
}

std::string read_gzip(const std::filesystem::path& path) {
  gzFile f = gzopen(path.string().c_str(), "rb");
  REQUIRE(f != nullptr);
  std::string text;
  char buf[1 << 14];
  int n = 0;
  while ((n = gzread(f, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  gzclose(f);
  return text;
}

// Perfetto's reading of a JSON timestamp in microseconds: llround(ts x 1000) nanoseconds.
int64_t perfetto_ns(const nlohmann::json& us) { return std::llround(us.get<double>() * 1000.0); }

struct Read {
  size_t slices = 0, flow_starts = 0, flow_ends = 0;
};

// Checks the document and returns what it holds.
Read check_document(const nlohmann::json& doc, const Simulation& s) {
  Read got;
  std::set<int> named_pids;
  std::set<std::pair<int, int>> named_tids, used_tids;
  std::map<std::pair<int, int>, std::vector<std::pair<int64_t, int64_t>>> thread_slices;
  std::set<int64_t> start_ids, end_ids;
  int64_t last_end_ns = 0;
  for (const auto& e : doc.at("traceEvents")) {
    const std::string ph = e.at("ph");
    if (ph == "M") {
      if (e.at("name") == "process_name") named_pids.insert(e.at("pid").get<int>());
      if (e.at("name") == "thread_name") named_tids.insert({e.at("pid").get<int>(), e.at("tid").get<int>()});
      continue;
    }
    if (ph == "s" || ph == "f") {
      (ph == "s" ? start_ids : end_ids).insert(e.at("id").get<int64_t>());
      ++(ph == "s" ? got.flow_starts : got.flow_ends);
      if (ph == "f") CHECK(e.at("bp") == "e");
      continue;
    }
    REQUIRE(ph == "X");
    ++got.slices;
    const std::pair<int, int> thread{e.at("pid").get<int>(), e.at("tid").get<int>()};
    used_tids.insert(thread);
    const int64_t ts = perfetto_ns(e.at("ts")), dur = perfetto_ns(e.at("dur"));
    CHECK(dur >= 0);
    thread_slices[thread].emplace_back(ts, ts + dur);
    last_end_ns = std::max(last_end_ns, ts + dur);
    if (e.at("name") != "DP grad sync") {
      CHECK(e.at("args").contains("micro_batch"));
      CHECK(e.at("args").contains("chunk"));
    }
  }
  CHECK(named_pids.size() == static_cast<size_t>(s.graph.layout.ranks));
  for (const auto& t : used_tids) CHECK(named_tids.count(t) == 1);
  size_t overlaps = 0;
  for (auto& [thread, spans] : thread_slices) {
    std::sort(spans.begin(), spans.end());
    for (size_t i = 1; i < spans.size(); ++i) overlaps += spans[i].first < spans[i - 1].second;
  }
  CHECK(overlaps == 0);
  CHECK(start_ids == end_ids);
  CHECK(start_ids.size() == got.flow_starts);
  CHECK(last_end_ns == std::llround(s.stats.step_seconds * 1e9));
  return got;
}

}  // namespace

TEST_CASE("chrome trace: integer-nanosecond slices that never overlap on a thread, ids in args, flows") {
  const auto kind = GENERATE(Schedule::OneF1B, Schedule::Interleaved1F1B, Schedule::DualPipe);
  const auto s = simulate(test::make_spec(kind, 4, 8, 2), odd_prices());
  std::ostringstream out;
  const auto counts = write_chrome_trace(s, out);
  const auto got = check_document(nlohmann::json::parse(out.str()), s);
  size_t timed_ops = 0;
  for (const auto& l : s.graph.label) timed_ops += l.unit != UnitKind::Sync;
  CHECK(got.slices == timed_ops);
  CHECK(static_cast<size_t>(counts.slices) == got.slices);
  CHECK(static_cast<size_t>(counts.flows) == got.flow_starts);
  CHECK(got.flow_starts == got.flow_ends);
  // Every stage-boundary transfer of a priced link links to its receiver.
  CHECK(counts.flows == static_cast<int64_t>(s.graph.transfer_consumer.size()));
  CHECK(counts.flows > 0);
}

TEST_CASE("chrome trace file: plain JSON, or gzip when the name ends in .gz") {
  const auto s =
      simulate(scenarios::load_scenario(std::string(MHCSIM_SOURCE_DIR) + "/scenarios/mhc_27b_h100.toml", {}));
  const auto dir = std::filesystem::temp_directory_path();
  const auto plain = dir / "mhcsim_test_trace.json";
  const auto packed = dir / "mhcsim_test_trace.json.gz";
  const auto plain_counts = write_chrome_trace_file(s, plain);
  const auto packed_counts = write_chrome_trace_file(s, packed);
  std::ifstream in(plain, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::ifstream gz(packed, std::ios::binary);
  CHECK(gz.get() == 0x1f);  // gzip magic
  CHECK(gz.get() == 0x8b);
  const std::string unpacked = read_gzip(packed);
  std::filesystem::remove(plain);
  std::filesystem::remove(packed);
  CHECK(unpacked == text);
  CHECK(std::filesystem::path("x.json.gz").extension() == ".gz");
  const auto got = check_document(nlohmann::json::parse(text), s);
  CHECK(static_cast<size_t>(plain_counts.slices) == got.slices);
  CHECK(packed_counts.slices == plain_counts.slices);
  CHECK(packed_counts.flows == plain_counts.flows);
}
