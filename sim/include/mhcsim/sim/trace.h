#pragma once
// Chrome trace event JSON of a simulated step (opens in Perfetto / chrome://tracing): one pid
// per rank, one tid per stream, complete events (ph "X") with ts and dur in microseconds, and
// process_name / thread_name metadata.
#include <filesystem>
#include <iosfwd>

#include "mhcsim/sim/simulate.h"

namespace mhcsim::sim {

void write_chrome_trace(const Simulation& sim, std::ostream& out);
// Written atomically (temp file + rename).
void write_chrome_trace_file(const Simulation& sim, const std::filesystem::path& path);

}  // namespace mhcsim::sim
