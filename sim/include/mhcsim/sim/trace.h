#pragma once
// Chrome trace event JSON of a simulated step (opens in Perfetto / chrome://tracing): one pid
// per rank, one tid per stream, complete events (ph "X") with the micro-batch and chunk (the
// pipeline stage) in args, flow arrows (ph "s" / "f") from each stage-boundary transfer to the
// op that consumes it on the other rank, and process_name / thread_name metadata.
// Times are rounded once, to integer nanoseconds, and written in microseconds with three
// decimals: a slice ends exactly where the next one on its stream starts, never after it
// (Perfetto drops slices that overlap on one thread).
#include <cstdint>
#include <filesystem>
#include <iosfwd>

#include "mhcsim/sim/simulate.h"

namespace mhcsim::sim {

struct TraceCounts {
  int64_t slices = 0;  // "X" events: every op that is not a zero-length commit marker
  int64_t flows = 0;   // send -> receive arrows (one "s" and one "f" event each)
};

// The verb a trace's written_by names, which --force checks before replacing one.
inline constexpr const char* kTraceWrittenBy = "simulate";

TraceCounts write_chrome_trace(const Simulation& sim, std::ostream& out);
// Written atomically (temp file + rename); gzip-compressed when the name ends in ".gz".
TraceCounts write_chrome_trace_file(const Simulation& sim, const std::filesystem::path& path);

}  // namespace mhcsim::sim
