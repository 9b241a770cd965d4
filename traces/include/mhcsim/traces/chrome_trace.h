#pragma once
// Streaming reader of Chrome trace event JSON as the PyTorch profiler (Kineto), Perfetto and
// mhcsim's own `--trace` write it: `{"traceEvents": [...]}` (or a bare array of events), of
// which the complete events (ph "X", ts and dur in microseconds, pid, tid, name, cat) are
// handed to a callback one at a time. The file is parsed with nlohmann::json's SAX interface
// over a stream (gzip-decompressed on the fly when it starts with the gzip magic bytes), so a
// trace of hundreds of MB never sits in memory: only the current event does.
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
};

struct ReadStats {
  int64_t events = 0;           // entries of traceEvents
  int64_t complete_events = 0;  // ph "X", handed to the callback
};

using EventSink = std::function<void(const TraceEvent&)>;

// Throws InputError naming `file_name` and the offending key (`traceEvents[12].dur`) for bad
// JSON, a missing traceEvents array, or a complete event without a finite ts / dur >= 0.
ReadStats read_chrome_trace(std::istream& in, const std::string& file_name, const EventSink& sink);
// Opens `path` (plain or gzip) and reads it; throws InputError if it cannot be opened.
ReadStats read_chrome_trace_file(const std::filesystem::path& path, const EventSink& sink);

}  // namespace mhcsim::traces
