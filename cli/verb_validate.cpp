// `mhcsim validate`: the shipped suite of published training runs (scenarios/validation/, one
// case per file with a [published] table) against the model: one row per figure with the
// difference in percent, then the median and the maximum |difference| (calculon's
// llm-validation layout). `--check MEDIAN,MAX` exits 1 when either is exceeded.
#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <stdexcept>

#include "common.h"
#include "mhcsim/validate/validate.h"
#include "verbs.h"

namespace mhcsim::cli {
namespace {

struct ValidateOptions {
  std::string dir;                      // empty -> <data dir>/validation
  std::vector<std::string> overrides;   // --set, applied to every case
  std::string calibration_path;         // --calibration, applied to every case
  std::string check;                    // --check MEDIAN,MAX
  OutputOptions out;
};

reports::Table table(const validate::Report& r, const std::string& dir) {
  reports::Table t(fmt::format("validate: {} published figures in {} against the model", r.rows.size(), dir),
                   {{"case", "case"},
                    {"metric", "metric (unit in name)"},
                    {"published", "published", 3},
                    {"predicted", "predicted", 3},
                    {"delta_pct", "delta (%)", 1},
                    {"held_out", "held-out"},
                    {"source", "source"}});
  for (const auto& row : r.rows)
    t.add_row({row.case_name, row.metric, row.published, row.predicted, row.delta_pct,
               std::string(row.held_out ? "yes" : "no"), row.source});
  return t;
}

nlohmann::json summary_json(const validate::Summary& s) {
  return {{"count", s.count}, {"median_abs_delta_pct", s.median_abs_delta_pct},
          {"max_abs_delta_pct", s.max_abs_delta_pct}};
}

std::string summary_text(const validate::Summary& s) {
  return fmt::format("{} figures: median |delta| {:.1f} %, max |delta| {:.1f} %", s.count, s.median_abs_delta_pct,
                     s.max_abs_delta_pct);
}

validate::Summary held_out_summary(const validate::Report& r) {
  std::vector<validate::Row> held;
  for (const auto& row : r.rows)
    if (row.held_out) held.push_back(row);
  return validate::summarize(held);
}

void run(const ValidateOptions& o) {
  // Parse --check before the (slower) suite so that a malformed value fails fast with exit 2.
  const bool checking = !o.check.empty();
  const auto thresholds = checking ? validate::parse_thresholds(o.check, "--check") : validate::Thresholds{};

  const std::filesystem::path dir = o.dir.empty() ? validate::default_validation_dir() : std::filesystem::path(o.dir);
  ScenarioOptions scn;
  scn.overrides = o.overrides;
  scn.calibration_path = o.calibration_path;
  auto cases = validate::load_cases(dir, scenario_overrides(scn));
  for (auto& s : cases) attach_calibration(s);
  const auto report = validate::validate_cases(cases);
  const auto held = held_out_summary(report);
  const auto result = checking ? validate::check(report.summary, thresholds) : validate::CheckResult{};

  if (o.out.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& r : report.rows)
      rows.push_back({{"case", r.case_name}, {"file", r.file}, {"metric", r.metric}, {"published", r.published},
                      {"predicted", r.predicted}, {"delta_pct", r.delta_pct}, {"held_out", r.held_out},
                      {"source", r.source}});
    nlohmann::json doc = {{"dir", dir.string()}, {"cases", cases.size()}, {"rows", rows},
                          {"summary", summary_json(report.summary)}, {"held_out_summary", summary_json(held)}};
    if (checking)
      doc["check"] = {{"median_pct", thresholds.median_pct}, {"max_pct", thresholds.max_pct},
                      {"median_ok", result.median_ok}, {"max_ok", result.max_ok}, {"passed", result.passed()}};
    print_json(doc);
  } else {
    table(report, dir.string()).print_text(std::cout);
    std::cout << fmt::format("# all: {}\n# held-out only: {}\n", summary_text(report.summary), summary_text(held));
    if (checking)
      std::cout << fmt::format("# check: median <= {} %: {}, max <= {} %: {}\n", thresholds.median_pct,
                               result.median_ok ? "ok" : "FAILED", thresholds.max_pct,
                               result.max_ok ? "ok" : "FAILED");
  }
  // nccl-tests habit: a failed check is a non-zero exit (1; bad input stays 2).
  if (!result.passed())
    throw std::runtime_error(fmt::format("validate --check {}: {} exceeds the thresholds", o.check,
                                         summary_text(report.summary)));
}

}  // namespace

void setup_validate(CLI::App& app) {
  auto opts = std::make_shared<ValidateOptions>();
  auto* cmd = app.add_subcommand("validate",
                                 "Compare the model with published training runs (scenarios/validation/)");
  cmd->add_option("--dir", opts->dir,
                  "Folder of validation cases, one scenario with a [published] table per *.toml "
                  "(default: the shipped scenarios/validation)")
      ->check(path_flag("a directory name"));
  cmd->add_option("--set", opts->overrides, "Override a key in every case, e.g. --set parallel.overlap=0.5")
      ->type_name("KEY=VALUE");
  cmd->add_option("--calibration", opts->calibration_path, "Calibration profile JSON applied to every case")
      ->check(path_flag());
  cmd->add_option("--check", opts->check,
                  "Exit 1 when median |delta| > MEDIAN % or max |delta| > MAX %")
      ->type_name("MEDIAN,MAX");
  add_output_options(*cmd, opts->out);
  cmd->callback([opts] { run(*opts); });
}

}  // namespace mhcsim::cli
