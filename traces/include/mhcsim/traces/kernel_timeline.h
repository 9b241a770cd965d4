#pragma once
// The part of a timeline the comparison needs, the same for a measured trace and a simulated
// step: kernel spans, each on one stream of one rank and of one op class. Names are classified
// while the trace streams past, so only 24 bytes per kernel are kept (no strings).
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mhcsim/traces/chrome_trace.h"
#include "mhcsim/traces/classify.h"

namespace mhcsim::traces {

struct StreamInfo {
  int32_t rank = 0;
  std::string name;  // "pid 0 tid 7" for a trace
};

struct KernelSpan {
  double start_seconds = 0;
  double end_seconds = 0;
  int32_t stream = 0;  // index into KernelTimeline::streams
  OpClass op_class = OpClass::OtherCompute;
};

struct KernelTimeline {
  std::vector<StreamInfo> streams;
  std::vector<KernelSpan> spans;
  int32_t ranks = 0;
  int64_t ignored_events = 0;  // complete events of ignored categories (CPU ops, annotations)
};

// Streams of kernels a timeline may have: 1024 GPUs x 64 streams; each costs a map entry.
inline constexpr size_t kMaxTraceStreams = size_t{1} << 16;

// Collects kernels from trace events. Ranks are the trace's pids in numeric order (text order
// when a pid is not a number); streams are (pid, tid) pairs.
class KernelTimelineBuilder {
 public:
  explicit KernelTimelineBuilder(const ClassPatterns& patterns) : classifier_(patterns) {}
  explicit KernelTimelineBuilder(Classifier classifier) : classifier_(std::move(classifier)) {}
  void add(const TraceEvent& e);
  KernelTimeline finish() &&;

 private:
  Classifier classifier_;
  KernelTimeline timeline_;
  std::map<std::pair<std::string, std::string>, int32_t> stream_index_;
  std::vector<std::string> stream_pid_;
  std::optional<double> base_us_;  // ts of the first kernel
};

// Throws InputError naming the file for a bad trace, one past `limits`, or one with more than
// kMaxTraceStreams (pid, tid) pairs of kernels.
KernelTimeline read_kernel_timeline(const std::filesystem::path& trace, const ClassPatterns& patterns,
                                    const TraceLimits& limits = {});

}  // namespace mhcsim::traces
