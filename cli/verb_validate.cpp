// `mhcsim validate`: the shipped suite of published training runs (scenarios/validation/, one
// case per file with a [published] table) against the model: one row per figure with the
// difference in percent, then the median and the maximum |difference| (calculon's
// llm-validation layout). `--check MEDIAN,MAX` exits 1 when either is exceeded.
#include <fmt/format.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>

#include "common.h"
#include "mhcsim/api/validate.h"
#include "verbs.h"

namespace mhcsim::cli {
namespace {

struct ValidateOptions {
  std::string dir;                     // empty -> <data dir>/validation
  std::vector<std::string> overrides;  // --set, applied to every case
  std::string calibration_path;        // --calibration, applied to every case
  std::string check;                   // --check MEDIAN,MAX
  OutputOptions out;
};

void run(const ValidateOptions& o) {
  // Parse --check before the (slower) suite so that a malformed value fails fast with exit 2.
  const bool checking = !o.check.empty();
  const auto thresholds = checking ? validate::parse_thresholds(o.check, "--check") : validate::Thresholds{};

  ScenarioOptions scn;
  scn.overrides = o.overrides;
  scn.calibration_path = o.calibration_path;
  const auto v = api::run_validation(o.dir, scenario_overrides(scn), attach_calibration);
  const auto result = checking ? validate::check(v.report.summary, thresholds) : validate::CheckResult{};

  if (o.out.json) {
    Output{true, {"validate", "", "", o.overrides}}.print_document(
        {{"dir", v.dir.string()},
         {"check", checking ? nlohmann::json(o.check) : nlohmann::json()},
         {"calibration", o.calibration_path.empty() ? nlohmann::json() : nlohmann::json(o.calibration_path)}},
        api::to_json(v, checking ? std::optional(thresholds) : std::nullopt));
  } else {
    api::validation_table(v).print_text(std::cout);
    for (const auto& c : v.skipped)
      std::cout << fmt::format("# skipped {}, which the --set makes invalid: {}\n",
                               std::filesystem::path(c.file).filename().string(), c.reason);
    std::cout << fmt::format("# all: {}\n# held-out only: {}\n", api::summary_text(v.report.summary),
                             api::summary_text(v.held_out));
    if (checking)
      std::cout << fmt::format("# check: median <= {} %: {}, max <= {} %: {}\n", thresholds.median_pct,
                               result.median_ok ? "ok" : "FAILED", thresholds.max_pct, result.max_ok ? "ok" : "FAILED");
  }
  // nccl-tests habit: a failed check is a non-zero exit (1; bad input stays 2).
  if (!result.passed())
    throw std::runtime_error(
        fmt::format("validate --check {}: {} exceeds the thresholds", o.check, api::summary_text(v.report.summary)));
}

}  // namespace

void setup_validate(CLI::App& app) {
  auto opts = std::make_shared<ValidateOptions>();
  auto* cmd = app.add_subcommand("validate", "Compare the model with published training runs (scenarios/validation/)");
  cmd->add_option("--dir", opts->dir,
                  "Folder of validation cases, one scenario with a [published] table per *.toml "
                  "(default: the shipped scenarios/validation)")
      ->check(path_flag("a directory name"));
  cmd->add_option("--set", opts->overrides, "Override a key in every case, e.g. --set parallel.overlap=0.5")
      ->type_name("KEY=VALUE");
  cmd->add_option("--calibration", opts->calibration_path, "Calibration profile JSON applied to every case")
      ->check(path_flag());
  cmd->add_option("--check", opts->check, "Exit 1 when median |delta| > MEDIAN % or max |delta| > MAX %")
      ->type_name("MEDIAN,MAX");
  add_output_options(*cmd, opts->out);
  cmd->callback([opts] { run(*opts); });
}

}  // namespace mhcsim::cli
