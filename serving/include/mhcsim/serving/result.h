#pragma once
// What a serving simulation measured, and the one list of its fields that the table and the
// JSON are both fed from (calculon's get_stats_fields habit).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mhcsim/reports/table.h"

namespace mhcsim::serving {

struct Percentiles {
  double p50_s = 0, p90_s = 0, p99_s = 0, mean_s = 0, max_s = 0;
};

struct KvSample {
  double time_s = 0;
  double utilisation = 0;  // used / total blocks over every replica
};

struct ServingResult {
  double rate_per_s = 0;          // the source's arrival rate, or the measured one (files)
  double arrival_rate_per_s = 0;  // measured: (arrivals - 1) / (last - first arrival); NaN for a burst
  int64_t requests = 0;           // completed (= all: the simulation drains)
  int64_t iterations = 0;
  int64_t preemptions = 0;  // recompute preemptions when KV blocks ran out
  double duration_s = 0;    // first arrival (time 0) to the last completion
  // Where ServingConfig::trace_max_bytes stopped the trace (simulated s); none when it is whole.
  std::optional<double> trace_stopped_at_s;
  double last_arrival_s = 0;    // the arrivals' span: they start at time 0
  Percentiles ttft, tpot, e2e;  // TPOT: a request's (E2E - TTFT) / (output tokens - 1)
  double input_tokens = 0;      // prompts, prefix-cache hits included
  double prefix_hit_tokens = 0;
  double output_tokens = 0;
  int64_t gpus = 0;  // every replica of every pool
  double input_tokens_per_s_per_gpu = 0;
  double output_tokens_per_s_per_gpu = 0;
  double input_tokens_per_s_per_node = 0;
  double output_tokens_per_s_per_node = 0;
  double slo_attainment = 0;  // share of requests meeting the SLOs set; NaN without any
  double goodput_per_s = 0;   // requests/s meeting the SLOs set; NaN without any
  // KV blocks in use over the blocks of the pool that decodes (every replica colocated; the decode
  // pool disaggregated, where a prefill replica holds a prompt only until it is sent).
  double kv_utilisation_mean = 0;  // time-weighted over the run
  double kv_utilisation_max = 0;
  std::vector<KvSample> kv_utilisation_series;  // at most kKvSeriesPoints, evenly thinned
  double mean_requests_in_system = 0;           // time-weighted (Little's L)
  int64_t max_requests_in_flight = 0;           // what the simulator held at once
  double cost_usd = 0;                          // each pool's GPUs x duration x its price_per_gpu_hour
  double cost_per_million_input_usd = 0;        // the GPU time spent on prefill per 1M input tokens
  double cost_per_million_output_usd = 0;       // on decode per 1M output tokens (0 = not priced)
};
inline constexpr size_t kKvSeriesPoints = 256;

struct StatField {
  const char* key;     // JSON key, unit in the name
  const char* header;  // table header, unit in parentheses
  int precision;
  double text_scale;  // the table shows value x scale
  double (*get)(const ServingResult&);
  bool count = false;               // a whole number (requests, preemptions): an integer in JSON and tables
  bool significant_digits = false;  // precision counts significant digits (rates over decades)
};
// The scalar fields, in table order.
const std::vector<StatField>& stat_fields();
// A field of a run as a table cell: an integer for a count, none for NaN, else the double
// (JSON: cell_json).
reports::Cell stat_cell(const StatField& f, const ServingResult& r);
// One row per run, the columns of stat_fields() (`serve`'s table, the report's).
reports::Table runs_table(const std::string& title, const std::vector<ServingResult>& runs);

}  // namespace mhcsim::serving
