#pragma once
// Assembles the capacity-planning report of one scenario: it calls the cost model and the
// simulator and hands their numbers to reports/ as tables and charts (reports/ only formats).
// Variants (other schedules, micro-batch counts, mHC n) are built from the scenario's
// template, so each goes through the same validation as the scenario itself.
#include "mhcsim/reports/document.h"
#include "mhcsim/scenarios/template.h"
#include "mhcsim/sim/schedule.h"

namespace mhcsim::sweep {

// `scenario` is tpl.instantiate({}) with its calibration attached. Sections that the model
// cannot price for this scenario (e.g. serving throughput) say so in a paragraph. A scenario
// whose simulation exceeds `max_sim_ops` is refused (InputError) before anything is simulated;
// larger simulated variants (bubble vs micro-batches) are left out.
reports::Document capacity_report(const Scenario& scenario, scenarios::ScenarioTemplate& tpl,
                                  int64_t max_sim_ops = sim::kDefaultMaxSimOps);

}  // namespace mhcsim::sweep
