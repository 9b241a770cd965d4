#pragma once
// `hw`: the hardware catalog (the shipped one, or with a hardware file the user's GPUs too).
#include <vector>

#include <nlohmann/json.hpp>

#include "mhcsim/reports/table.h"
#include "mhcsim/scenarios/catalog.h"

namespace mhcsim::api {

// One row per catalog GPU with every figure and its source, as `hw --json` prints them.
nlohmann::json catalog_rows(const std::vector<scenarios::CatalogEntry>& catalog);
// The text table: dense peaks, NVLink and NIC per GPU per direction, prices.
reports::Table catalog_table(const std::vector<scenarios::CatalogEntry>& catalog);

}  // namespace mhcsim::api
