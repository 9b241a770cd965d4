#include "mhcsim/sim/trace.h"

#include <fmt/format.h>

#include <ostream>
#include <string>

#include "mhcsim/atomic_write.h"
#include "mhcsim/units.h"

namespace mhcsim::sim {
namespace {

void flush_if_large(std::string& buf, std::ostream& out) {
  if (buf.size() < (1u << 20)) return;
  out << buf;
  buf.clear();
}

}  // namespace

void write_chrome_trace(const Simulation& sim, std::ostream& out) {
  const OpGraph& g = sim.graph;
  const Timeline& t = sim.timeline;
  std::string buf = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  auto back = std::back_inserter(buf);
  bool first = true;
  auto sep = [&] {
    if (!first) buf += ",\n";
    first = false;
  };
  for (int32_t r = 0; r < g.layout.ranks; ++r) {
    sep();
    fmt::format_to(back, R"({{"ph":"M","name":"process_name","pid":{},"args":{{"name":"rank {}"}}}})", r, r);
    for (int32_t k = 0; k < kStreamsPerRank; ++k) {
      const int32_t s = r * kStreamsPerRank + k;
      if (g.stream_begin[static_cast<size_t>(s)] == g.stream_begin[static_cast<size_t>(s) + 1]) continue;
      sep();
      fmt::format_to(back, R"({{"ph":"M","name":"thread_name","pid":{},"tid":{},"args":{{"name":"{}"}}}})",
                     r, k, to_string(g.kind_of_stream(s)));
    }
  }
  for (int32_t op = 0; op < g.op_count(); ++op) {
    const auto o = static_cast<size_t>(op);
    const OpLabel& l = g.label[o];
    if (l.unit == UnitKind::Sync) continue;  // zero-length commit markers
    const int32_t s = g.stream[o];
    const std::string_view piece = to_string(l.piece);
    sep();
    fmt::format_to(back,
                   R"({{"ph":"X","name":"{}{}{}","cat":"{}","pid":{},"tid":{},"ts":{:.3f},"dur":{:.3f},)"
                   R"("args":{{"micro_batch":{},"hop":{}}}}})",
                   to_string(l.unit), piece.empty() ? "" : " ", piece, to_string(g.kind_of_stream(s)),
                   g.rank_of_stream(s), s % kStreamsPerRank, t.start_seconds[o] / kUs,
                   (t.end_seconds[o] - t.start_seconds[o]) / kUs, l.mb, l.hop);
    flush_if_large(buf, out);
  }
  buf += "\n]}\n";
  out << buf;
}

void write_chrome_trace_file(const Simulation& sim, const std::filesystem::path& path) {
  write_file_atomically(path, [&](std::ostream& out) { write_chrome_trace(sim, out); });
}

}  // namespace mhcsim::sim
