#pragma once
// The sections of the capacity report, one function each (capacity_report.cpp assembles them).
#include <optional>
#include <string>
#include <vector>

#include "mhcsim/reports/document.h"
#include "mhcsim/scenarios/template.h"

namespace mhcsim::sweep::detail {

// The scenario with overrides applied, or nothing when that variant is not valid.
std::optional<Scenario> variant(scenarios::ScenarioTemplate& tpl, const Scenario& base,
                                const std::vector<scenarios::Override>& overrides);

// The answer first: step time, MFU, GPUs, memory verdict, cost and energy (training), or
// throughput, latency, GPUs for the load and cost per 1M tokens (serving).
reports::Section headline_section(const Scenario& s);
reports::Section summary_section(const Scenario& s);
reports::Section memory_section(const Scenario& s);
reports::Section step_section(const Scenario& s);
// Simulated variants larger than `max_sim_ops` (sim::check_op_budget) are left out.
reports::Section pipeline_section(const Scenario& s, scenarios::ScenarioTemplate& tpl, int64_t max_sim_ops);
reports::Section kv_section(const Scenario& s);
reports::Section mhc_section(const Scenario& s, scenarios::ScenarioTemplate& tpl);
reports::Section cost_section(const Scenario& s);
// Serving scenarios: the request-level simulator on one replica at rates rising past its
// capacity (latency percentiles against load, throughput against latency).
reports::Section serving_load_section(const Scenario& s);
// mHC against HC on the stability library's random model; nothing for a plain residual.
std::optional<reports::Section> stability_section(const Scenario& s);

}  // namespace mhcsim::sweep::detail
