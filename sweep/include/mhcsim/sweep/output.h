#pragma once
// Sweep outputs: PREFIX.csv and PREFIX.json, written together (core/atomic_write.h's
// OutputBatch: both to disk, then renamed, the JSON last), neither replacing an existing file
// without `force`. The JSON is the manifest: meta.csv records the CSV's bytes and FNV-1a hash,
// so a pair left by a run killed between the two renames shows as inconsistent. Rows are
// streamed in blocks, so a million-point sweep never holds its whole table in memory.
#include <filesystem>
#include <iosfwd>
#include <string>

#include <nlohmann/json.hpp>

#include "mhcsim/sweep/sweep.h"

namespace mhcsim::sweep {

void write_csv(const SweepResult& r, std::ostream& out);
// {"axes": [...], "metrics": [...], "points": [row objects, one per line], "feasible_points": n,
//  "meta": meta}: the rows first, so it can be written as they arrive.
void write_json(const SweepResult& r, const nlohmann::json& meta, std::ostream& out);

// Streams a sweep's blocks into PREFIX.csv and PREFIX.json as they arrive: `run` gets the sink
// to call with each block in point order (stream_sweep's BlockSink) and runs the sweep. Both
// files are written at once, the JSON's manifest (meta.csv: the CSV's bytes and FNV-1a hash)
// at its end, then both are renamed (CSV first). Checks the prefix as require_outputs.
void stream_outputs(const std::vector<SweepAxis>& axes, const std::vector<Metric>& metrics, const nlohmann::json& meta,
                    const std::string& prefix, bool force, const std::function<void(const BlockSink&)>& run);

// Throws InputError("-o", ...) for a prefix that cannot take the two files: empty, a directory
// ("out/", which would write the hidden out/.csv), a device or FIFO (`-o /dev/null` would
// create /dev/null.csv), or files that exist without `force`.
void require_outputs(const std::string& prefix, bool force);

// Checks as require_outputs, then writes both.
void write_outputs(const SweepResult& r, const nlohmann::json& meta, const std::string& prefix, bool force);

}  // namespace mhcsim::sweep
