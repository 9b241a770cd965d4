#include "iteration_trace.h"

#include <ostream>
#include <string>

#include <fmt/format.h>

#include "mhcsim/atomic_write.h"
#include "mhcsim/serving/simulate.h"

namespace mhcsim::serving::detail {

IterationTrace::IterationTrace(std::ostream* out, int64_t max_replicas, int64_t max_bytes)
    : out_(out), max_replicas_(max_replicas), max_bytes_(max_bytes) {
  if (!out_) return;
  const std::string head = fmt::format("{{\"written_by\":\"{}\",\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n",
                                       written_by(kTraceWrittenBy));
  *out_ << head;
  bytes_ = static_cast<int64_t>(head.size());
}

IterationTrace::~IterationTrace() {
  if (out_) *out_ << "\n]}\n";
}

void IterationTrace::write(const std::string& event) {
  if (!first_) *out_ << ",\n";
  first_ = false;
  *out_ << event;
  bytes_ += static_cast<int64_t>(event.size()) + 2;
}

void IterationTrace::name(int64_t index, const std::string& label, int64_t local_index) {
  if (!out_ || local_index >= max_replicas_) return;
  write(fmt::format(R"({{"name":"process_name","ph":"M","pid":{},"args":{{"name":"{}"}}}})", index, label));
}

void IterationTrace::iteration(int64_t index, int64_t local_index, double start_s, double seconds,
                               const cost::BatchShape& b, int64_t used_blocks) {
  if (!out_ || local_index >= max_replicas_ || stopped_at_s_) return;
  const std::string events[] = {
      fmt::format(
          R"({{"name":"P{:.0f} D{:.0f}","ph":"X","pid":{},"tid":0,"ts":{:.3f},"dur":{:.3f},)"
          R"("args":{{"prefill_tokens":{:.0f},"decode_seqs":{:.0f},"decode_context_tokens":{:.0f},"kv_blocks_used":{}}}}})",
          b.prefill_tokens, b.decode_seqs, index, start_s * 1e6, seconds * 1e6, b.prefill_tokens, b.decode_seqs,
          b.decode_context_tokens, used_blocks),
      // Counters Perfetto draws as tracks under the replica: the KV cache's use and the batch,
      // as the iteration starts with them.
      fmt::format(R"({{"name":"KV cache blocks used","ph":"C","pid":{},"ts":{:.3f},"args":{{"blocks":{}}}}})", index,
                  start_s * 1e6, used_blocks),
      fmt::format(
          R"({{"name":"batch","ph":"C","pid":{},"ts":{:.3f},"args":{{"decode sequences":{:.0f},"prefill tokens":{:.0f}}}}})",
          index, start_s * 1e6, b.decode_seqs, b.prefill_tokens)};
  int64_t size = 0;
  for (const auto& e : events) size += static_cast<int64_t>(e.size()) + 2;
  if (bytes_ + size > max_bytes_) {
    stopped_at_s_ = start_s;
    write(fmt::format(R"({{"name":"trace stopped at its size limit","ph":"i","s":"g","pid":{},"ts":{:.3f}}})", index,
                      start_s * 1e6));
    return;
  }
  for (const auto& e : events) write(e);
}

}  // namespace mhcsim::serving::detail
