#pragma once
// `diff A.toml B.toml` (issue 17 item 6): what differs between two scenarios, and what that
// does to every figure `step` and `memory` give, side by side with the relative change.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mhcsim/reports/table.h"
#include "mhcsim/specs.h"

namespace mhcsim::api {

struct KeyChange {
  std::string key;      // dotted scenario key as `scenario --json` shows it: "parallel.pp"
  nlohmann::json a, b;  // null where one scenario has no such key
};

struct FigureChange {
  std::string verb;              // the verb that gives the figure: "step" or "memory"
  reports::Quantity a;           // key, label, A's value, unit and text scale
  reports::Cell b;               // B's value (empty when B has no such figure: a training vs a serving scenario)
  std::optional<double> change;  // B / A - 1 for numbers with A != 0
};

struct ScenarioDiff {
  std::vector<KeyChange> keys;
  std::vector<FigureChange> figures;
  // Both train, or both serve the same phase; otherwise the figures have no change.
  bool comparable = true;
};

ScenarioDiff diff_scenarios(const Scenario& a, const Scenario& b);

// Text tables (values in the units `step` shows them in) and the --json results object (SI
// values, change as a fraction).
reports::Table key_changes_table(const ScenarioDiff& d);
reports::Table figure_changes_table(const ScenarioDiff& d);
nlohmann::json to_json(const ScenarioDiff& d);

}  // namespace mhcsim::api
