#pragma once
// Assembles the capacity-planning report of one scenario: it calls the cost model and the
// simulator and hands their numbers to reports/ as tables and charts (reports/ only formats).
// Variants (other schedules, micro-batch counts, mHC n) are built from the scenario's
// template, so each goes through the same validation as the scenario itself.
#include "mhcsim/reports/document.h"
#include "mhcsim/scenarios/template.h"

namespace mhcsim::sweep {

// `scenario` is tpl.instantiate({}) with its calibration attached. Sections that the model
// cannot price for this scenario (e.g. serving throughput) say so in a paragraph.
reports::Document capacity_report(const Scenario& scenario, scenarios::ScenarioTemplate& tpl);

}  // namespace mhcsim::sweep
