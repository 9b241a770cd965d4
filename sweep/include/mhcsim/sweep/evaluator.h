#pragma once
// What a sweep computes at each point: a fixed list of metrics (one column each in the table,
// the CSV and the JSON) and a function from a validated scenario to their values. A point the
// model finds impossible (out of memory, ...) is a value with its reason, not an exception
// (Timeloop's EvalStatus habit), so the sweep keeps it.
#include <functional>
#include <string>
#include <vector>

#include "mhcsim/reports/table.h"
#include "mhcsim/specs.h"

namespace mhcsim::sweep {

struct Metric {
  reports::Column column;         // key with unit ("step_time_s"), header, text scale
  bool higher_is_better = false;  // ranking direction for --top
};

struct Evaluation {
  std::string infeasible_reason;  // empty: feasible
  std::vector<double> values;     // one per metric; NaN where not computed
};

struct Evaluator {
  std::string name;  // "analytic", "simulate"
  std::vector<Metric> metrics;
  // Must be thread-safe. May throw InputError (SpecError) for an impossible spec: the sweep
  // records its message as the reason.
  std::function<Evaluation(const Scenario&)> evaluate;
};

}  // namespace mhcsim::sweep
