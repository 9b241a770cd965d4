// `mhcsim report`: the capacity-planning report of a scenario as one self-contained HTML
// file and its Markdown twin (figures as .svg files), written atomically into a directory.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "common.h"
#include "mhcsim/reports/document.h"
#include "mhcsim/scenarios/template.h"
#include "mhcsim/sim/schedule.h"
#include "mhcsim/sweep/capacity_report.h"
#include "verbs.h"

namespace mhcsim::cli {
namespace {

struct ReportOptions {
  ScenarioOptions scn;
  std::string dir;
  bool force = false;
  int64_t max_sim_ops = sim::kDefaultMaxSimOps;
};

void run(const ReportOptions& o) {
  reports::require_report_directory(o.dir, o.force);  // before the work, not after it
  const Scenario s = load_scenario(o.scn);
  const auto path = scenario_file(o.scn);
  scenarios::ScenarioTemplate tpl(scenarios::read_scenario_file(path), path.string(), scenario_overrides(o.scn));
  reports::write_report(sweep::capacity_report(s, tpl, o.max_sim_ops), o.dir, o.force);
  std::cout << fmt::format("wrote {0}/report.html, {0}/report.md and {0}/figures/\n", o.dir);
  require_fits(s);
}

}  // namespace

void setup_report(CLI::App& app) {
  auto opts = std::make_shared<ReportOptions>();
  auto* cmd = app.add_subcommand("report", "Write a capacity-planning report (HTML + Markdown with SVG plots)");
  add_scenario_options(*cmd, opts->scn);
  cmd->add_option("-o,--output", opts->dir, "Report directory (report.html, report.md, figures/)")
      ->required()
      ->check(path_flag("a directory name"));
  cmd->add_flag("--force", opts->force,
                "Replace an existing report directory (only one mhcsim wrote: it holds a .mhcsim-output file)");
  add_sim_budget_option(*cmd, opts->max_sim_ops);
  cmd->callback([opts] { run(*opts); });
}

}  // namespace mhcsim::cli
