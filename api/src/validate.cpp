#include "mhcsim/api/validate.h"

#include <fmt/format.h>

namespace mhcsim::api {

namespace {
// The validate library keeps differences in percent (its --check thresholds are typed in
// percent); JSON carries every ratio as a fraction.
constexpr double kPercent = 100.0;

nlohmann::json summary_json(const validate::Summary& s) {
  return {{"count", s.count},
          {"median_abs_delta", s.median_abs_delta_pct / kPercent},
          {"max_abs_delta", s.max_abs_delta_pct / kPercent}};
}

validate::Summary held_out_summary(const validate::Report& r) {
  std::vector<validate::Row> held;
  for (const auto& row : r.rows)
    if (row.held_out) held.push_back(row);
  return validate::summarize(held);
}
}  // namespace

Validation run_validation(const std::filesystem::path& dir, const std::vector<scenarios::Override>& overrides,
                          const std::function<void(Scenario&)>& prepare) {
  Validation v;
  v.dir = dir.empty() ? validate::default_validation_dir() : dir;
  auto suite = validate::validate_suite(v.dir, overrides, prepare);
  v.cases = suite.cases;
  v.skipped = std::move(suite.skipped);
  v.report = std::move(suite.report);
  v.held_out = held_out_summary(v.report);
  return v;
}

reports::Table validation_table(const Validation& v) {
  reports::Table t(
      fmt::format("validate: {} published figures in {} against the model", v.report.rows.size(), v.dir.string()),
      {{"case", "case"},
       {"metric", "metric (unit in name)"},
       {"published", "published", 3},
       {"predicted", "predicted", 3},
       {"delta", "delta (%)", 1, kPercent},
       {"held_out", "held-out"},
       {"source", "source"}});
  for (const auto& row : v.report.rows)
    t.add_row(
        {row.case_name, row.metric, row.published, row.predicted, row.delta_pct / kPercent, row.held_out, row.source});
  return t;
}

std::string summary_text(const validate::Summary& s) {
  return fmt::format("{} figures: median |delta| {:.1f} %, max |delta| {:.1f} %", s.count, s.median_abs_delta_pct,
                     s.max_abs_delta_pct);
}

nlohmann::json to_json(const Validation& v, const std::optional<validate::Thresholds>& thresholds) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : v.report.rows)
    rows.push_back({{"case", r.case_name},
                    {"file", r.file},
                    {"metric", r.metric},
                    {"published", r.published},
                    {"predicted", r.predicted},
                    {"delta", r.delta_pct / kPercent},
                    {"held_out", r.held_out},
                    {"source", r.source}});
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& c : v.skipped) skipped.push_back({{"file", c.file}, {"reason", c.reason}});
  nlohmann::json doc = {{"dir", v.dir.string()},
                        {"cases", v.cases},
                        {"skipped", skipped},
                        {"rows", rows},
                        {"summary", summary_json(v.report.summary)},
                        {"held_out_summary", summary_json(v.held_out)}};
  if (thresholds) {
    const auto result = validate::check(v.report.summary, *thresholds);
    doc["check"] = {{"median_abs_delta_limit", thresholds->median_pct / kPercent},
                    {"max_abs_delta_limit", thresholds->max_pct / kPercent},
                    {"median_ok", result.median_ok},
                    {"max_ok", result.max_ok},
                    {"passed", result.passed()}};
  }
  return doc;
}

}  // namespace mhcsim::api
