#pragma once
// Sweep outputs: PREFIX.csv and PREFIX.json, each written atomically (temp file + rename),
// neither replacing an existing file without `force`. Rows are streamed in blocks, so a
// million-point sweep never holds its whole table in memory.
#include <filesystem>
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "mhcsim/sweep/sweep.h"

namespace mhcsim::sweep {

void write_csv(const SweepResult& r, std::ostream& out);
// {"meta": meta, "axes": [...], "metrics": [...], "points": [row objects]}
void write_json(const SweepResult& r, const nlohmann::json& meta, std::ostream& out);

// Checks both paths before writing either. Throws InputError("-o", "... exists (use --force
// to replace it)").
void write_outputs(const SweepResult& r, const nlohmann::json& meta, const std::string& prefix,
                   bool force);

}  // namespace mhcsim::sweep
