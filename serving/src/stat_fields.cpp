#include "mhcsim/serving/result.h"

#include <cmath>

namespace mhcsim::serving {

const std::vector<StatField>& stat_fields() {
  using R = const ServingResult&;
  static const std::vector<StatField> fields{
      {"rate_per_s", "rate (req/s)", 4, 1, [](R r) { return r.rate_per_s; }, false, true},
      // What the run's arrivals came to: a Poisson sample's differs from the rate asked for, and
      // goodput (over the run's duration) is to be read against it.
      {"arrival_rate_per_s", "arrived (req/s)", 4, 1, [](R r) { return r.arrival_rate_per_s; }, false, true},
      {"requests", "requests", 0, 1, [](R r) { return static_cast<double>(r.requests); }, true},
      {"ttft_p50_s", "TTFT p50 (ms)", 1, 1e3, [](R r) { return r.ttft.p50_s; }},
      {"ttft_p90_s", "TTFT p90 (ms)", 1, 1e3, [](R r) { return r.ttft.p90_s; }},
      {"ttft_p99_s", "TTFT p99 (ms)", 1, 1e3, [](R r) { return r.ttft.p99_s; }},
      {"tpot_p50_s", "TPOT p50 (ms)", 2, 1e3, [](R r) { return r.tpot.p50_s; }},
      {"tpot_p90_s", "TPOT p90 (ms)", 2, 1e3, [](R r) { return r.tpot.p90_s; }},
      {"tpot_p99_s", "TPOT p99 (ms)", 2, 1e3, [](R r) { return r.tpot.p99_s; }},
      {"e2e_p50_s", "E2E p50 (s)", 3, 1, [](R r) { return r.e2e.p50_s; }},
      {"e2e_p90_s", "E2E p90 (s)", 3, 1, [](R r) { return r.e2e.p90_s; }},
      {"e2e_p99_s", "E2E p99 (s)", 3, 1, [](R r) { return r.e2e.p99_s; }},
      {"input_tokens_per_s_per_gpu", "in (tok/s/GPU)", 0, 1, [](R r) { return r.input_tokens_per_s_per_gpu; }},
      {"output_tokens_per_s_per_gpu", "out (tok/s/GPU)", 0, 1, [](R r) { return r.output_tokens_per_s_per_gpu; }},
      {"input_tokens_per_s_per_node", "in (tok/s/node)", 0, 1, [](R r) { return r.input_tokens_per_s_per_node; }},
      {"output_tokens_per_s_per_node", "out (tok/s/node)", 0, 1, [](R r) { return r.output_tokens_per_s_per_node; }},
      {"slo_attainment", "SLO met (%)", 1, 100, [](R r) { return r.slo_attainment; }},
      {"goodput_per_s", "goodput (req/s)", 4, 1, [](R r) { return r.goodput_per_s; }, false, true},
      {"kv_utilisation_mean", "KV mean (%)", 1, 100, [](R r) { return r.kv_utilisation_mean; }},
      {"kv_utilisation_max", "KV max (%)", 1, 100, [](R r) { return r.kv_utilisation_max; }},
      {"preemptions", "preempted", 0, 1, [](R r) { return static_cast<double>(r.preemptions); }, true},
      {"cost_per_million_input_usd", "$/1M in", 3, 1, [](R r) { return r.cost_per_million_input_usd; }},
      {"cost_per_million_output_usd", "$/1M out", 3, 1, [](R r) { return r.cost_per_million_output_usd; }},
  };
  return fields;
}

reports::Cell stat_cell(const StatField& f, const ServingResult& r) {
  const double v = f.get(r);
  if (!std::isfinite(v)) return {};  // none: a burst's arrival rate, SLO figures without SLOs
  if (f.count) return static_cast<int64_t>(std::llround(v));
  return v;
}

reports::Table runs_table(const std::string& title, const std::vector<ServingResult>& runs) {
  std::vector<reports::Column> columns;
  for (const auto& f : stat_fields())
    columns.push_back({f.key, f.header, f.precision, f.text_scale, f.significant_digits});
  reports::Table t(title, columns);
  for (const auto& r : runs) {
    std::vector<reports::Cell> row;
    for (const auto& f : stat_fields()) row.push_back(stat_cell(f, r));
    t.add_row(std::move(row));
  }
  return t;
}

}  // namespace mhcsim::serving
