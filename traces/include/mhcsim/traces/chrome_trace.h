#pragma once
// Streaming reader of Chrome trace event JSON as the PyTorch profiler (Kineto), Perfetto and
// mhcsim's own `--trace` write it: `{"traceEvents": [...]}` (or a bare array of events), of
// which the duration events are handed to a callback one at a time: complete events (ph "X",
// ts and dur in microseconds, pid, tid, name, cat) as they come, and each begin/end pair (ph
// "B" then "E" on the same pid and tid, nested) as one event when its "E" arrives. The file is
// read by RapidJSON's SAX reader over a stream (gzip-decompressed on the fly when it starts
// with the gzip magic bytes) whose handler builds no JSON values and keeps only the fields it
// needs, so a trace of hundreds of MB never sits in memory: only the current event does, and
// the "B" events still open.
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string>

namespace mhcsim::traces {

struct TraceEvent {
  std::string name;
  std::string cat;  // empty when the event has none
  std::string pid;  // as text: Kineto writes integers, some tools strings
  std::string tid;
  double ts_us = 0;
  double dur_us = 0;
  // args.correlation: Kineto's link from a CUDA runtime launch on a CPU thread to the kernel
  // (or memcpy) it started on the GPU; -1 when the event has none.
  int64_t correlation = -1;
};

struct ReadStats {
  int64_t events = 0;               // entries of traceEvents
  int64_t complete_events = 0;      // ph "X", handed to the callback
  int64_t begin_end_pairs = 0;      // ph "B" matched by an "E", handed to the callback as one event
  int64_t unmatched_begin_end = 0;  // an "E" with no open "B", or a "B" never ended
};

using EventSink = std::function<void(const TraceEvent&)>;

// What a trace may hold, checked as it streams, so neither time nor memory grows without end
// (a 4 MB gzip can inflate to GiBs). The defaults take the largest traces the Perfetto UI
// opens (~1 GB, ~4M Kineto events of ~250 bytes); `compare --max-trace-bytes /
// --max-trace-events` raise them. Reading takes time in proportion to the bytes (see
// traces/README.md for the measured rate); kernels are kept as 32-byte spans, so the event
// limit bounds memory.
struct TraceLimits {
  uint64_t max_bytes = uint64_t{1} << 30;  // JSON after decompression (1 GiB)
  int64_t max_events = int64_t{1} << 23;   // entries of traceEvents (8M: <= 256 MiB of spans)
};
// A kernel name is KBs; a longer string (the parser holds it in memory whole), or run of
// whitespace and brackets between other tokens, is not a trace.
inline constexpr uint64_t kMaxTraceTokenBytes = uint64_t{16} << 20;

// Throws InputError naming `file_name` and the offending key (`traceEvents[12].dur`) for bad
// JSON, a missing traceEvents array, a complete event without a finite ts / dur >= 0, a B or E
// without a finite ts, an E before its B, or a trace past `limits`.
ReadStats read_chrome_trace(std::istream& in, const std::string& file_name, const EventSink& sink,
                            const TraceLimits& limits = {});
// Opens `path` (a regular file, plain or gzip) and reads it; throws InputError if it cannot be
// opened or is larger than limits.max_bytes.
ReadStats read_chrome_trace_file(const std::filesystem::path& path, const EventSink& sink,
                                 const TraceLimits& limits = {});

}  // namespace mhcsim::traces
