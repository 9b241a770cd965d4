#pragma once
// `mhcsim validate`: a suite of published training runs (one scenario per case, each with a
// [published] table) against the cost model. One row per published figure with the relative
// difference, then the median and the maximum |difference| (calculon's llm-validation layout).
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "mhcsim/scenarios/load.h"
#include "mhcsim/specs.h"

namespace mhcsim::validate {

struct Row {
  std::string case_name;  // the scenario's name
  std::string file;       // the case file
  std::string metric;     // one of published_metric_names(); the unit is in the name
  double published = 0;
  double predicted = 0;
  double delta_pct = 0;   // (predicted - published) / published x 100
  bool held_out = false;  // not looked at while choosing the model's default parameters
  std::string source;     // paper, table, row
};

struct Summary {
  int64_t count = 0;
  double median_abs_delta_pct = 0;  // 0 when there are no rows
  double max_abs_delta_pct = 0;
};

struct Report {
  std::vector<Row> rows;
  Summary summary;
};

// (predicted - published) / published x 100. SpecError when published is not > 0.
double delta_pct(double predicted, double published);

// Median (mean of the two middle values for an even count) and maximum of |delta_pct|.
Summary summarize(const std::vector<Row>& rows);

// The model's value of one published metric for a training scenario (see specs.h for the
// metric list): step_time_s from cost::step_estimate; tflops_per_gpu = Megatron eq. 3 FLOPs /
// (step time x GPUs); mfu_pct = StepEstimate::mfu x 100; activation_gib_per_gpu from
// cost::training_memory; step_time_ratio_vs_residual = step / step of the same scenario with
// a plain residual (n = 1). InputError naming the metric when it is unknown.
double predict(const Scenario& s, std::string_view metric);

// One row per figure of the scenario's [published] table. InputError naming the file when the
// scenario has no [published] table or an empty one.
std::vector<Row> validate_case(const Scenario& s);

// Every *.toml directly in `dir`, sorted by file name. InputError when `dir` is not a readable
// directory or holds no case file.
std::vector<std::filesystem::path> case_files(const std::filesystem::path& dir);

// A case the overrides make invalid (--set parallel.ep=1 on a dense model), with the reason.
struct SkippedCase {
  std::string file;
  std::string reason;  // the one-line error the overrides gave
};

struct Suite {
  Report report;      // rows of every case compared, in file order, and their summary
  int64_t cases = 0;  // the cases compared
  std::vector<SkippedCase> skipped;
};

// Every case file of `dir` (case_files) loaded with the overrides, finished by `prepare` (the
// CLI attaches its calibration there) and compared with its published figures. A case that the
// overrides make invalid, at load or for one of its figures (--set workload.phase=prefill on a
// decode case), is skipped with its reason, so one override can be tried over a suite of
// different runs; a case broken as written is an error, and so are overrides that every case
// refuses (the first case's error).
Suite validate_suite(const std::filesystem::path& dir, const std::vector<scenarios::Override>& overrides = {},
                     const std::function<void(Scenario&)>& prepare = {});

// `--check MEDIAN,MAX`: thresholds on the median and the maximum |delta|, in percent.
struct Thresholds {
  double median_pct = 0;
  double max_pct = 0;
};
// "MEDIAN,MAX", two numbers >= 0. InputError on the key `option` otherwise.
Thresholds parse_thresholds(std::string_view text, std::string_view option = "--check");

struct CheckResult {
  bool median_ok = true;  // median |delta| <= threshold
  bool max_ok = true;     // max |delta| <= threshold
  bool passed() const { return median_ok && max_ok; }
};
CheckResult check(const Summary& summary, const Thresholds& thresholds);

// The suite shipped with the data: <data dir>/validation.
std::filesystem::path default_validation_dir();

}  // namespace mhcsim::validate
