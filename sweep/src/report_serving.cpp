// The report's serving-under-load section: the request-level simulator (serving/) on one
// replica of the scenario at Poisson rates rising past what the replica can serve, so that the
// knee (latency growing without bound) shows.
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "mhcsim/error.h"
#include "mhcsim/reports/svg.h"
#include "mhcsim/serving/simulate.h"
#include "report_parts.h"

namespace mhcsim::sweep::detail {

namespace {
constexpr int64_t kRequestsPerRun = 1000;
constexpr double kOutputTokens = 256;  // `mhcsim serve`'s default output length
constexpr uint64_t kSeed = 1;          // one seed at every rate: common random numbers
// Offered load as shares of the flood throughput.
constexpr double kLoadShares[] = {0.2, 0.4, 0.6, 0.8, 0.9, 1.0, 1.1, 1.25};
constexpr double kFloodRatePerS = 1e9;  // every request arrives within a microsecond

using Field = double (*)(const serving::ServingResult&);

// A run's field as `serve` and the runs table read it (serving::stat_fields), by its key.
Field field(std::string_view key) {
  for (const auto& f : serving::stat_fields())
    if (key == f.key) return f.get;
  throw std::logic_error("report_serving: no serving field " + std::string(key));
}

// Latencies (log scale, ms) of the runs against one of their rates, a series per field.
reports::LineChart latency_chart(std::string title, reports::Axis x_axis, Field x,
                                 const std::vector<std::pair<std::string, Field>>& latencies,
                                 const std::vector<serving::ServingResult>& runs) {
  reports::LineChart chart{std::move(title), std::move(x_axis), {"latency", "ms", true, 1e3}, {}};
  for (const auto& [name, y] : latencies) {
    reports::Series line{name, {}, {}};
    for (const auto& r : runs) {
      line.x.push_back(x(r));
      line.y.push_back(y(r));
    }
    chart.series.push_back(std::move(line));
  }
  return chart;
}
}  // namespace

reports::Section serving_load_section(const Scenario& s) {
  using namespace serving;
  reports::Section sec{"Serving under load (request-level simulation)", {}};
  const LengthDistribution input{LengthDistribution::Kind::Fixed, static_cast<double>(s.workload.context_len)};
  const LengthDistribution output{LengthDistribution::Kind::Fixed, kOutputTokens};
  std::vector<ServingResult> runs;
  double flood_per_s = 0;
  int64_t replica_gpus = 0;
  const ServingConfig config;  // one replica; the scheduler's defaults, batch <= workload.batch_seqs
  try {
    const Deployment replica(s);
    replica_gpus = replica.model().gpus_per_replica();
    const auto run = [&](double rate_per_s) {
      PoissonSource source(rate_per_s, kRequestsPerRun, input, output, kSeed);
      return simulate(replica, config, source);
    };
    // What the replica serves flat out (the drain at the end included, so a little below its
    // steady state): the scale of the rates below.
    const auto flood = run(kFloodRatePerS);
    flood_per_s = static_cast<double>(flood.requests) / flood.duration_s;
    for (const double share : kLoadShares) runs.push_back(run(share * flood_per_s));
  } catch (const InputError& e) {  // e.g. one request's KV cache does not fit the replica
    sec.blocks.emplace_back(reports::Paragraph{fmt::format("Not simulated: {}", e.what())});
    return sec;
  }

  sec.blocks.emplace_back(reports::Paragraph{fmt::format(
      "One replica ({} GPU{}), Poisson arrivals, {} requests of {} input and {:.0f} output tokens at each rate, "
      "the scheduler's defaults (token budget {}, chunked prefill, at most {} sequences per batch). The rates "
      "are {:.0f}% to {:.0f}% of the replica's flood throughput, {:.3f} requests/s (every request at once). "
      "Past 100% the queue grows for the whole run: time to first token then grows with the number of "
      "requests, without bound, while the time per output token stays at the full batch's.",
      replica_gpus, replica_gpus == 1 ? "" : "s", kRequestsPerRun, s.workload.context_len, kOutputTokens,
      config.scheduler.token_budget, s.workload.batch_seqs, 100 * kLoadShares[0],
      100 * kLoadShares[std::size(kLoadShares) - 1], flood_per_s)});
  sec.blocks.emplace_back(runs_table("runs by arrival rate", runs));

  const Field ttft_p50 = field("ttft_p50_s"), ttft_p99 = field("ttft_p99_s");
  const Field tpot_p50 = field("tpot_p50_s"), tpot_p99 = field("tpot_p99_s");
  struct Plot {
    const char *name, *caption, *title;
    reports::Axis x_axis;
    Field x;
    std::vector<std::pair<std::string, Field>> latencies;
  };
  const Plot plots[] = {
      {"serve_latency_vs_load",
       "Simulated p50 and p99 time to first token (TTFT) and time per output token (TPOT) at each arrival rate of "
       "the table above.",
       "Latency percentiles against load",
       {"arrival rate per replica", "requests/s"},
       field("rate_per_s"),
       {{"TTFT p50", ttft_p50}, {"TTFT p99", ttft_p99}, {"TPOT p50", tpot_p50}, {"TPOT p99", tpot_p99}}},
      {"serve_throughput_vs_p99",
       "The same runs: the output throughput each rate reached per GPU against its p99 latencies. The throughput "
       "levels off at the replica's capacity while the p99 TTFT climbs.",
       "Throughput against latency (simulated)",
       {"output tokens/s per GPU", "tokens/s"},
       field("output_tokens_per_s_per_gpu"),
       {{"TTFT p99", ttft_p99}, {"TPOT p99", tpot_p99}}},
  };
  for (const auto& p : plots)
    sec.blocks.emplace_back(
        reports::figure(p.name, p.caption, latency_chart(p.title, p.x_axis, p.x, p.latencies, runs)));
  return sec;
}

}  // namespace mhcsim::sweep::detail
