#pragma once
// The part of a timeline the comparison needs, the same for a measured trace and a simulated
// step: kernel spans, each on one stream of one rank and of one op class. Names are looked up
// in a table of distinct names (open addressing, 8 bytes a slot, at most half full) while the
// trace streams past, so a kernel costs a 32-byte span (no string); memory grows with distinct
// names and kernels, and the table classifies each name once.
//
// Annotations (issue 15): a kernel's class and direction come, in this order of trust, from
//   1. the innermost `user_annotation` range (record_function) whose name says a class, around
//      the CUDA launch (`cuda_runtime` / `cuda_driver`, matched to the kernel by
//      args.correlation) on the launching CPU thread;
//   2. the same on another thread of the launching process (autograd runs backward on its own
//      thread while the annotating thread waits inside the range);
//   3. the innermost `cpu_op` around the launch on its thread whose name says a class;
//   4. the innermost `gpu_user_annotation` range on the kernel's own GPU stream that holds its
//      start;
//   5. the kernel's name (classify.h).
// An annotation decides among compute classes for a compute kernel and among communication
// classes for a communication kernel (by name, incl. the communication libraries' notify
// kernels): "dispatch(B)" makes DeepEP's combine kernel, which backward dispatch runs,
// `dispatch`, and "attn(F)" makes a grouped FP8 GEMM `attention`, but neither makes an FP8
// cast a communication nor an NCCL kernel attention. The direction comes from the annotation.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "mhcsim/large_vector.h"
#include "mhcsim/traces/chrome_trace.h"
#include "mhcsim/traces/classify.h"

namespace mhcsim::traces {

struct StreamInfo {
  int32_t rank = 0;
  std::string name;  // "pid 0 tid 7" for a trace
};

inline constexpr uint32_t kNoName = UINT32_MAX;

struct KernelSpan {
  double start_seconds = 0;
  double end_seconds = 0;
  int32_t stream = 0;       // index into KernelTimeline::streams
  uint32_t name = kNoName;  // index into KernelTimeline::names (none in a simulated step)
  OpClass op_class = OpClass::OtherCompute;
  Direction direction = Direction::Unknown;
};

// How the kernels got their classes.
struct ClassSources {
  int64_t annotation_ranges = 0;  // ranges (user annotations, CPU ops, GPU ranges) naming a class
  int64_t by_launch_thread = 0;   // 1. above
  int64_t by_launch_process = 0;  // 2.
  int64_t by_cpu_op = 0;          // 3.
  int64_t by_gpu_range = 0;       // 4.
  int64_t kept_name_class = 0;    // annotated, but the annotation's class was of the other kind
};

struct KernelTimeline {
  std::vector<StreamInfo> streams;
  LargeVector<KernelSpan> spans;
  LargeVector<std::string_view> names;          // distinct kernel names, in name_storage
  std::vector<LargeVector<char>> name_storage;  // blocks of names, never reallocated
  int32_t ranks = 0;
  int64_t ignored_events = 0;  // duration events of ignored categories (CPU ops, annotations)
  ClassSources sources;
};

// One row of `compare --list-kernels`: a kernel name with the class (and direction) it got;
// a name that got several classes has a row for each.
struct KernelNameRow {
  std::string name;
  OpClass op_class = OpClass::OtherCompute;
  Direction direction = Direction::Unknown;
  int64_t count = 0;
  double total_seconds = 0;
};
// Sorted by total time, longest first, then by name.
std::vector<KernelNameRow> kernel_list(const KernelTimeline& t);

// Streams of kernels a timeline may have: 1024 GPUs x 64 streams; each costs a map entry. CPU
// threads with launches or annotations are bounded alike.
inline constexpr size_t kMaxTraceStreams = size_t{1} << 16;

// Collects kernels, launches and annotation ranges from trace events, and resolves the classes
// in finish() (O(n log n) in launches and ranges: sorts and sweeps). Ranks are the trace's pids
// of kernels in numeric order (text order when a pid is not a number); streams are (pid, tid)
// pairs.
class KernelTimelineBuilder {
 public:
  explicit KernelTimelineBuilder(const ClassPatterns& patterns) : classifier_(patterns) {}
  explicit KernelTimelineBuilder(Classifier classifier) : classifier_(std::move(classifier)) {}
  void add(const TraceEvent& e);
  KernelTimeline finish() &&;

  enum class RangeKind : uint8_t { UserAnnotation, CpuOp, GpuAnnotation };
  struct Range {
    double start_us = 0, end_us = 0;
    int32_t where = 0;  // CPU thread, or GPU (pid, tid) for GpuAnnotation
    RangeKind kind = RangeKind::UserAnnotation;
    AnnotationClass cls;
  };
  struct Launch {
    int64_t correlation = 0;
    double ts_us = 0;
    int32_t thread = 0;
  };

 private:
  // What an event's category makes it (cached per distinct category, see role_of).
  enum class Role : uint8_t { Kernel, UserAnnotation, GpuAnnotation, CpuOp, Launch, Ignored };
  // A slot of the name table: the name's 32-bit hash and its index in timeline_.names.
  struct NameSlot {
    uint32_t hash = 0;
    uint32_t id = kNoName;  // kNoName: empty
  };
  // The last (pid, tid) looked up and its index: consecutive events share one most of the time.
  struct LastKey {
    std::string pid, tid;
    int32_t id = -1;
    bool is(const TraceEvent& e) const { return id >= 0 && e.tid == tid && e.pid == pid; }
    void set(const TraceEvent& e, int32_t i) {
      pid.assign(e.pid);
      tid.assign(e.tid);
      id = i;
    }
  };

  Role role_of(const std::string& cat);
  void grow_names();
  int32_t stream_of(const TraceEvent& e);
  int32_t thread_of(const TraceEvent& e);
  uint32_t name_of(const std::string& name);
  double rel_us(double ts_us);
  std::optional<AnnotationClass> annotation_of(const std::string& name);
  void resolve();

  Classifier classifier_;
  KernelTimeline timeline_;
  std::string key_;  // scratch: pid '\0' tid
  std::unordered_map<std::string, int32_t> stream_index_;
  std::vector<std::string> stream_pid_;
  std::unordered_map<std::string, int32_t> thread_index_;  // CPU threads and GPU annotation streams
  std::vector<std::string> thread_key_;
  std::string_view store(const std::string& name);  // a copy in the timeline's name_storage
  LargeVector<NameSlot> name_slots_;                // open addressing, linear probing; power of 2
  LastKey last_stream_, last_thread_;
  std::vector<std::pair<std::string, Role>> roles_;  // per category seen (at most 64 kept)
  LargeVector<OpClass> name_class_;
  std::unordered_map<std::string, std::optional<AnnotationClass>> annotation_cache_;
  LargeVector<Range> ranges_;
  LargeVector<Launch> launches_;
  LargeVector<std::pair<int64_t, uint32_t>> kernel_correlation_;  // (correlation, span)
  std::optional<double> base_us_;                                 // ts of the first event kept
};

// Throws InputError naming the file for a bad trace, one past `limits`, or one with more than
// kMaxTraceStreams (pid, tid) pairs of kernels.
KernelTimeline read_kernel_timeline(const std::filesystem::path& trace, const ClassPatterns& patterns,
                                    const TraceLimits& limits = {});

}  // namespace mhcsim::traces
