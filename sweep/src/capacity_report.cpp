#include "mhcsim/sweep/capacity_report.h"

#include <fmt/format.h>

#include "mhcsim/error.h"
#include "mhcsim/sim/simulate.h"
#include "mhcsim/version.h"
#include "report_parts.h"

namespace mhcsim::sweep {
namespace detail {

std::optional<Scenario> variant(scenarios::ScenarioTemplate& tpl, const Scenario& base,
                                const std::vector<scenarios::Override>& overrides) {
  try {
    Scenario s = tpl.instantiate(overrides);
    s.calibration = base.calibration;
    return s;
  } catch (const InputError&) {
    return std::nullopt;
  }
}

}  // namespace detail

reports::Document capacity_report(const Scenario& s, scenarios::ScenarioTemplate& tpl, int64_t max_sim_ops) {
  using namespace detail;
  reports::Document doc;
  doc.title = fmt::format("Capacity plan: {}", s.name);
  doc.subtitle =
      fmt::format("{} on {} x {} ({}); mhcsim {}{}", s.model.name, s.hardware.gpus, s.hardware.gpu.name, s.path,
                  kVersion, s.calibration ? ", calibrated" : ", datasheet peaks x default efficiencies");
  doc.sections.push_back(headline_section(s));
  doc.sections.push_back(summary_section(s));
  doc.sections.push_back(memory_section(s));
  if (s.workload.mode == WorkloadMode::Train) {
    sim::check_op_budget(s, max_sim_ops);  // before step_section simulates
    doc.sections.push_back(step_section(s));
    doc.sections.push_back(pipeline_section(s, tpl, max_sim_ops));
  }
  if (s.workload.mode == WorkloadMode::Serve) doc.sections.push_back(serving_load_section(s));
  doc.sections.push_back(kv_section(s));
  doc.sections.push_back(mhc_section(s, tpl));
  if (auto stability = stability_section(s)) doc.sections.push_back(std::move(*stability));
  doc.sections.push_back(cost_section(s));
  return doc;
}

}  // namespace mhcsim::sweep
