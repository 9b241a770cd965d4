// `mhcsim report`: the capacity-planning report of a scenario as one self-contained HTML
// file and its Markdown twin (figures as .svg files), written atomically into a directory.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "common.h"
#include "mhcsim/reports/document.h"
#include "mhcsim/reports/output_dir.h"
#include "mhcsim/scenarios/template.h"
#include "mhcsim/sweep/capacity_report.h"
#include "verbs.h"

namespace mhcsim::cli {
namespace {

struct ReportOptions {
  ScenarioOptions scn;
  std::string dir;
  bool force = false;
};

}  // namespace

void setup_report(CLI::App& app) {
  auto opts = std::make_shared<ReportOptions>();
  auto* cmd = app.add_subcommand("report", "Write a capacity-planning report (HTML + Markdown with SVG plots)");
  add_scenario_options(*cmd, opts->scn);
  cmd->add_option("-o,--output", opts->dir, "Report directory (report.html, report.md, figures/)")->required();
  cmd->add_flag("--force", opts->force, "Replace an existing report directory");
  cmd->callback([opts] {
    reports::require_writable(opts->dir, opts->force);  // before the work, not after it
    const Scenario s = load_scenario(opts->scn);
    scenarios::ScenarioTemplate tpl(scenarios::read_scenario_file(scenario_file(opts->scn)), scenario_file(opts->scn).string(),
                                    scenario_overrides(opts->scn));
    reports::write_report(sweep::capacity_report(s, tpl), opts->dir, opts->force);
    std::cout << fmt::format("wrote {0}/report.html, {0}/report.md and {0}/figures/\n", opts->dir);
  });
}

}  // namespace mhcsim::cli
