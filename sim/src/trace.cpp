#include "mhcsim/sim/trace.h"

#include <fmt/format.h>

#include <cmath>
#include <ostream>
#include <string>
#include <string_view>

#include "mhcsim/atomic_write.h"

namespace mhcsim::sim {
namespace {

int64_t to_ns(double seconds) { return std::llround(seconds * 1e9); }

// Integer nanoseconds as microseconds with three decimals: exact in decimal, so a reader
// that rounds ts x 1000 (Perfetto does) gets the nanoseconds back.
struct Us {
  int64_t ns;
};

}  // namespace
}  // namespace mhcsim::sim

template <>
struct fmt::formatter<mhcsim::sim::Us> : fmt::formatter<std::string_view> {
  template <typename Ctx>
  auto format(mhcsim::sim::Us t, Ctx& ctx) const {
    return fmt::format_to(ctx.out(), "{}.{:03}", t.ns / 1000, t.ns % 1000);
  }
};

namespace mhcsim::sim {
namespace {

// Slices shorter than this get no flow arrow: the arrow's ends sit mid-slice, strictly inside.
constexpr int64_t kMinFlowSliceNs = 2;

class TraceWriter {
 public:
  TraceWriter(const Simulation& sim, std::ostream& out) : g_(sim.graph), t_(sim.timeline), out_(out) {}

  TraceCounts write() {
    buf_ = fmt::format("{{\"written_by\":\"{}\",\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n",
                       written_by(kTraceWrittenBy));
    metadata();
    for (int32_t op = 0; op < g_.op_count(); ++op) slice(op);
    for (const auto& [send, consumer] : g_.transfer_consumer) flow(send, consumer);
    buf_ += "\n]}\n";
    emit();
    return counts_;
  }

 private:
  void sep() {
    if (!first_) buf_ += ",\n";
    first_ = false;
  }
  void emit() { out_.write(buf_.data(), static_cast<std::streamsize>(buf_.size())); }
  void flush_if_large() {
    if (buf_.size() < (1u << 20)) return;
    emit();
    buf_.clear();
  }
  auto out() { return std::back_inserter(buf_); }
  int64_t start_ns(int32_t op) const { return to_ns(t_.start_seconds[static_cast<size_t>(op)]); }
  int64_t end_ns(int32_t op) const { return to_ns(t_.end_seconds[static_cast<size_t>(op)]); }
  int32_t tid(int32_t op) const { return g_.stream[static_cast<size_t>(op)] % kStreamsPerRank; }
  int32_t pid(int32_t op) const { return g_.rank_of_stream(g_.stream[static_cast<size_t>(op)]); }

  void metadata() {
    for (int32_t r = 0; r < g_.layout.ranks; ++r) {
      sep();
      fmt::format_to(out(), R"({{"ph":"M","name":"process_name","pid":{},"args":{{"name":"rank {}"}}}})", r, r);
      for (int32_t k = 0; k < kStreamsPerRank; ++k) {
        const int32_t s = r * kStreamsPerRank + k;
        if (g_.stream_begin[static_cast<size_t>(s)] == g_.stream_begin[static_cast<size_t>(s) + 1]) continue;
        sep();
        fmt::format_to(out(), R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"{}"}}}})", r, k,
                       to_string(g_.kind_of_stream(s)));
      }
    }
  }

  void slice(int32_t op) {
    const OpLabel& l = g_.label[static_cast<size_t>(op)];
    if (l.unit == UnitKind::Sync) return;  // zero-length commit markers
    const int64_t begin = start_ns(op);
    if (l.serialised && end_ns(op) == begin) return;  // an all-to-all at overlap 1 waited for, not run
    const std::string_view piece = to_string(l.piece);
    sep();
    fmt::format_to(out(), R"({{"ph":"X","name":"{}{}{}{}","cat":"{}","pid":{},"tid":{},"ts":{},"dur":{})",
                   to_string(l.unit), piece.empty() ? "" : " ", piece, l.serialised ? " (serialised)" : "",
                   is_communication(l) ? "communication" : "compute", pid(op), tid(op), Us{begin},
                   Us{end_ns(op) - begin});
    if (l.unit == UnitKind::GradSync)
      buf_ += "}";
    else
      fmt::format_to(out(), R"(,"args":{{"micro_batch":{},"chunk":{}}}}})", l.mb, l.hop);
    ++counts_.slices;
    flush_if_large();
  }

  void flow(int32_t send, int32_t consumer) {
    const int64_t send_begin = start_ns(send), send_dur = end_ns(send) - send_begin;
    const int64_t recv_begin = start_ns(consumer), recv_dur = end_ns(consumer) - recv_begin;
    if (send_dur < kMinFlowSliceNs || recv_dur < kMinFlowSliceNs) return;
    const OpLabel& l = g_.label[static_cast<size_t>(consumer)];
    const char* name = l.unit == UnitKind::Forward ? "activation" : "gradient";
    const int64_t id = counts_.flows++;
    sep();
    fmt::format_to(out(), R"({{"ph":"s","id":{},"name":"{}","cat":"pp","pid":{},"tid":{},"ts":{}}})", id, name,
                   pid(send), tid(send), Us{send_begin + send_dur / 2});
    sep();
    fmt::format_to(out(), R"({{"ph":"f","bp":"e","id":{},"name":"{}","cat":"pp","pid":{},"tid":{},"ts":{}}})", id, name,
                   pid(consumer), tid(consumer), Us{recv_begin + recv_dur / 2});
    flush_if_large();
  }

  const OpGraph& g_;
  const Timeline& t_;
  std::ostream& out_;
  std::string buf_;
  bool first_ = true;
  TraceCounts counts_;
};

}  // namespace

TraceCounts write_chrome_trace(const Simulation& sim, std::ostream& out) { return TraceWriter(sim, out).write(); }

TraceCounts write_chrome_trace_file(const Simulation& sim, const std::filesystem::path& path) {
  TraceCounts counts;
  write_file_atomically_gzip_by_name(path, [&](std::ostream& out) { counts = write_chrome_trace(sim, out); });
  return counts;
}

}  // namespace mhcsim::sim
