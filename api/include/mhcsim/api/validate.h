#pragma once
// `validate`: the suite of published training runs (scenarios/validation/, one case per file
// with a [published] table) against the model: one row per figure with the difference in
// percent, then the median and the maximum |difference| (calculon's llm-validation layout).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mhcsim/reports/table.h"
#include "mhcsim/scenarios/load.h"
#include "mhcsim/validate/validate.h"

namespace mhcsim::api {

struct Validation {
  std::filesystem::path dir;
  int64_t cases = 0;                           // the cases compared
  std::vector<validate::SkippedCase> skipped;  // refused by the overrides, with the reason
  validate::Report report;
  validate::Summary held_out;  // the rows not looked at while choosing the model's defaults
};

// Loads every case in `dir` (empty: the shipped suite) with `overrides` (skipping the cases
// they make invalid, validate::validate_suite), lets `prepare` finish each (the CLI attaches its
// calibration there), and compares them with their published figures.
Validation run_validation(const std::filesystem::path& dir, const std::vector<scenarios::Override>& overrides,
                          const std::function<void(Scenario&)>& prepare);

reports::Table validation_table(const Validation& v);
// "N figures: median |delta| x %, max |delta| y %"
std::string summary_text(const validate::Summary& s);
// dir, cases, skipped, rows, summary, held_out_summary; and "check" when thresholds are given.
nlohmann::json to_json(const Validation& v, const std::optional<validate::Thresholds>& thresholds);

}  // namespace mhcsim::api
