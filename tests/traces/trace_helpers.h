#pragma once
// Test helpers: a small Kineto-shaped trace with hand-computed busy times, gzip, and short
// ways to read a trace from memory and pick figures out of its metrics.
#include <zlib.h>

#include <sstream>
#include <stdexcept>
#include <string>

#include "mhcsim/traces/timeline_metrics.h"

namespace mhcsim::traces::test {

// Two GPUs (pid 0, 1); times in us. Hand-computed figures are in test_trace_compare.cpp.
//   rank 0 stream 7: flash_fwd [0,10)  m_grouped_gemm [10,30)  flash_bwd [40,60)
//   rank 0 stream 9: DeepEP dispatch [5,15)  DeepEP combine [25,45)
//   rank 1 stream 7: sinkhorn [0,5)  ampere_bf16_gemm [20,50)
//   rank 1 stream 8: ncclDevKernel_SendRecv [45,70)
// plus a CPU op and a GPU annotation, which are not kernels and must not count.
inline std::string small_trace_text() {
  return R"trace({"schemaVersion": 1, "traceEvents": [
  {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 4242, "tid": 4242, "ts": 0, "dur": 100},
  {"ph": "X", "cat": "kernel", "name": "void flash_fwd_kernel<Flash_fwd_kernel_traits<128>>(Flash_fwd_params)", "pid": 0, "tid": 7, "ts": 1000, "dur": 10},
  {"ph": "X", "cat": "kernel", "name": "m_grouped_gemm_fp8_fp8_bf16_nt", "pid": 0, "tid": 7, "ts": 1010, "dur": 20},
  {"ph": "X", "cat": "kernel", "name": "flash_bwd_dq_dk_dv_loop_kernel", "pid": 0, "tid": 7, "ts": 1040, "dur": 20},
  {"ph": "X", "cat": "kernel", "name": "void deep_ep::intranode::dispatch<8, 768, 8192>(int4*)", "pid": 0, "tid": 9, "ts": 1005, "dur": 10},
  {"ph": "X", "cat": "kernel", "name": "void deep_ep::intranode::combine<__nv_bfloat16, 8, 768>(int4*)", "pid": 0, "tid": 9, "ts": 1025, "dur": 20},
  {"ph": "X", "cat": "gpu_user_annotation", "name": "## forward ##", "pid": 1, "tid": 7, "ts": 1000, "dur": 70},
  {"ph": "X", "cat": "kernel", "name": "mhc_sinkhorn_knopp_fwd", "pid": 1, "tid": 7, "ts": 1000, "dur": 5},
  {"ph": "X", "cat": "kernel", "name": "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_nn", "pid": 1, "tid": 7, "ts": 1020, "dur": 30},
  {"ph": "X", "cat": "kernel", "name": "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)", "pid": 1, "tid": 8, "ts": 1045, "dur": 25}
]})trace";
}

// gzip (RFC 1952) of `text` in one member.
inline std::string gzip(const std::string& text) {
  z_stream zs{};
  if (deflateInit2(&zs, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("deflateInit2");
  std::string out(deflateBound(&zs, static_cast<uLong>(text.size())) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  const int rc = deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) throw std::runtime_error("deflate");
  return out;
}

inline KernelTimeline timeline_of(const std::string& text, const ClassPatterns& patterns = default_patterns()) {
  KernelTimelineBuilder builder(patterns);
  std::istringstream in(text);
  read_chrome_trace(in, "t.json", [&](const TraceEvent& e) { builder.add(e); });
  return std::move(builder).finish();
}

inline double class_busy(const TimelineMetrics& m, OpClass c) { return m.class_busy_seconds[static_cast<size_t>(c)]; }

// Busy time of one (rank, role); -1 when the rank has no stream of that role.
inline double role_busy(const TimelineMetrics& m, int32_t rank, StreamRole role) {
  for (const auto& s : m.streams)
    if (s.rank == rank && s.role == role) return s.busy_seconds;
  return -1;
}

}  // namespace mhcsim::traces::test
