#include "mhcsim/api/diff.h"

#include <fmt/format.h>

#include <map>

#include "mhcsim/api/memory.h"
#include "mhcsim/api/step.h"
#include "mhcsim/scenarios/describe.h"

namespace mhcsim::api {
namespace {

using nlohmann::json;

// {"parallel": {"pp": 16}} -> {"parallel.pp": 16}; arrays stay values.
void flatten(const json& j, const std::string& prefix, std::map<std::string, json>& out) {
  if (!j.is_object()) {
    out[prefix] = j;
    return;
  }
  for (const auto& [k, v] : j.items()) flatten(v, prefix.empty() ? k : prefix + "." + k, out);
}

std::optional<double> number(const reports::Cell& c) {
  if (const auto* d = std::get_if<double>(&c)) return *d;
  if (const auto* i = std::get_if<int64_t>(&c)) return static_cast<double>(*i);
  return std::nullopt;
}

void add_figures(const char* verb, std::vector<reports::Quantity> qa, std::vector<reports::Quantity> qb,
                 bool comparable, std::vector<FigureChange>& out) {
  for (auto& q : qa) {
    FigureChange f{verb, q, {}, std::nullopt};
    for (const auto& other : qb)
      if (other.key == q.key) f.b = other.value;
    const auto x = number(q.value), y = number(f.b);
    if (comparable && x && y && *x != 0) f.change = *y / *x - 1;
    out.push_back(std::move(f));
  }
}

std::string shown(const json& v) { return v.is_null() ? "-" : v.is_string() ? v.get<std::string>() : v.dump(); }

}  // namespace

ScenarioDiff diff_scenarios(const Scenario& a, const Scenario& b) {
  ScenarioDiff d;
  std::map<std::string, json> ka, kb;
  flatten(scenarios::to_json(a), "", ka);
  flatten(scenarios::to_json(b), "", kb);
  for (const auto& [k, v] : kb) ka.try_emplace(k, nullptr);
  for (const auto& [k, v] : ka) {
    const auto other = kb.find(k);
    const json w = other == kb.end() ? json(nullptr) : other->second;
    if (v != w) d.keys.push_back({k, v, w});
  }
  // A training step and a serving iteration share names, not meaning: side by side only.
  d.comparable = a.workload.mode == b.workload.mode &&
                 (a.workload.mode == WorkloadMode::Train || a.workload.phase == b.workload.phase);
  add_figures("step", step_quantities(a), step_quantities(b), d.comparable, d.figures);
  add_figures("memory", memory_quantities(a), memory_quantities(b), d.comparable, d.figures);
  return d;
}

reports::Table key_changes_table(const ScenarioDiff& d) {
  // The validated scenarios as `scenario --json` writes them: field names (model.expert_groups
  // where the file says model.moe.groups) and derived values (parallel.dp, parallel.stages).
  reports::Table t(
      "fields of the validated scenarios that differ (as scenario --json names them, derived ones "
      "included)",
      {{"key", "field"}, {"a", "A"}, {"b", "B"}});
  for (const auto& k : d.keys) t.add_row({k.key, shown(k.a), shown(k.b)});
  return t;
}

reports::Table figure_changes_table(const ScenarioDiff& d) {
  reports::Table t("figures of A and B (step, memory)",
                   {{"figure", "figure"}, {"unit", "unit"}, {"a", "A"}, {"b", "B"}, {"change", "change (%)", 1, 100}});
  for (const auto& f : d.figures) {
    const auto& q = f.a;
    const auto value = [&](const reports::Cell& c) { return reports::format_cell(c, q.precision, q.text_scale); };
    t.add_row({fmt::format("{}: {}", f.verb, q.label), q.unit, value(q.value), value(f.b),
               f.change ? reports::Cell(*f.change) : reports::Cell()});
  }
  return t;
}

json to_json(const ScenarioDiff& d) {
  json keys = json::array(), figures = json::array();
  for (const auto& k : d.keys) keys.push_back({{"key", k.key}, {"a", k.a}, {"b", k.b}});
  for (const auto& f : d.figures)
    figures.push_back({{"verb", f.verb},
                       {"figure", f.a.key},
                       {"label", f.a.label},
                       {"a", reports::cell_json(f.a.value)},
                       {"b", reports::cell_json(f.b)},
                       {"change", f.change ? json(*f.change) : json(nullptr)}});
  return {{"keys", keys}, {"figures", figures}, {"comparable", d.comparable}};
}

}  // namespace mhcsim::api
