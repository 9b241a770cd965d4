#pragma once
// `traffic`: residual / HC / mHC memory traffic (mHC paper Table 2) per token and per step,
// fused and unfused, and the recompute scheme's activation memory (Eq. 20).
#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

#include "mhcsim/reports/table.h"
#include "mhcsim/specs.h"

namespace mhcsim::api {

struct Traffic {
  reports::Table rows;                     // per token per mHC layer, one row per operation
  std::vector<reports::Quantity> summary;  // per step
};

// `n` > 0 sets the expansion rate (and turns a residual model into mHC when n > 1); 0 keeps
// model.mhc_n.
Traffic traffic(const Scenario& s, int64_t n = 0);
// {"rows": [...], "summary": {...}}
nlohmann::json to_json(const Traffic& t);

}  // namespace mhcsim::api
