// `compare`'s reading speed (issue 15, item 5): a Kineto-shaped trace generated in memory is
// read, classified and measured as `mhcsim compare --trace` does (reader, timeline builder,
// metrics, comparison rows), and the rate is reported as trace events per second of CPU time.
//
// The trace is what the PyTorch profiler writes for an annotated training step: per kernel, a
// `cuda_runtime` cudaLaunchKernel event on the CPU thread and the kernel on a GPU stream, both
// carrying args.correlation, and every 16 launches a `user_annotation` range ("attn(F)",
// "dispatch(B)", ...) around them. Kernel names are all distinct (`distinct_names`: the worst
// case for a name cache, e.g. templated kernels with shapes in their names) or drawn from 64
// (`repeated_names`, the usual case). Events are ~230 bytes, as Kineto's are with their args.
#include <benchmark/benchmark.h>

#include <fmt/format.h>

#include <istream>
#include <streambuf>
#include <string>

#include "mhcsim/traces/compare.h"

namespace {

using namespace mhcsim::traces;

std::string make_trace(int64_t kernels, bool distinct) {
  static const char* kPhases[] = {"attn(F)", "mlp(F)", "dispatch(F)", "combine(F)",
                                  "attn(B)", "mlp(B)", "dispatch(B)", "combine(B)"};
  static const char* kKernels[] = {
      "void flash::compute_attn_ws<Flash_fwd_kernel_traits<192, 128, 128, 12, 2, false, 1>>(Params)",
      "void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_ptp128c::GemmKernel>(Params)",
      "void dpsk::ep::internode::dispatch<false, 8, true, 8>(int4*, float*, long*)",
      "void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 8, 2, 16, 24>(int4*, float*)",
      "void cuda::per_token_cast_to_fp8_with_channels<__nv_bfloat16, 128, false, 128, false>(int)",
      "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>(int)",
      "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)",
      "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1"};
  std::string out = "{\"schemaVersion\": 1, \"traceEvents\": [\n";
  out.reserve(static_cast<size_t>(kernels) * 520);
  int64_t ts = 1'740'461'679'470'000;
  for (int64_t k = 0; k < kernels; ++k) {
    if (k % 16 == 0)
      fmt::format_to(std::back_inserter(out),
                     "{{\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"{}\", \"pid\": 1166, \"tid\": 1166, "
                     "\"ts\": {}, \"dur\": 160, \"args\": {{\"External id\": {}}}}},\n",
                     kPhases[(k / 16) % 8], ts, k);
    const int64_t corr = 44449 + k;
    fmt::format_to(std::back_inserter(out),
                   "{{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1166, "
                   "\"tid\": 1166, \"ts\": {}, \"dur\": 4, \"args\": {{\"External id\": {}, \"cbid\": 211, "
                   "\"correlation\": {}}}}},\n",
                   ts + 1, corr, corr);
    const char* base = kKernels[k % 8];
    const std::string name = distinct ? fmt::format("{}<{}>", base, k) : fmt::format("{}<{}>", base, k % 64);
    fmt::format_to(std::back_inserter(out),
                   "{{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"{}\", \"pid\": 0, \"tid\": {}, \"ts\": {}, "
                   "\"dur\": 8, \"args\": {{\"External id\": {}, \"queued\": 0, \"device\": 0, \"context\": 1, "
                   "\"stream\": 7, \"correlation\": {}, \"registers per thread\": 56, \"grid\": [132, 1, 1]}}}}{}\n",
                   name, 7 + (k % 8 == 2 || k % 8 == 3 ? 20 : 0), ts + 6, corr, corr, k + 1 == kernels ? "" : ",");
    ts += 10;
  }
  out += "]}\n";
  return out;
}

// The trace's bytes as a stream without a copy (an istringstream copies them per iteration,
// which the profile showed as ~30% of the time, in page faults and memmove).
class ViewStreambuf : public std::streambuf {
 public:
  explicit ViewStreambuf(const std::string& text) {
    char* p = const_cast<char*>(text.data());  // only read: the get area
    setg(p, p, p + text.size());
  }
};

void compare_trace(benchmark::State& state, bool distinct) {
  const std::string text = make_trace(state.range(0), distinct);
  const auto patterns = default_patterns();
  int64_t events = 0;
  for (auto _ : state) {
    ViewStreambuf view(text);
    std::istream in(&view);
    KernelTimelineBuilder builder(patterns);
    const auto stats = read_chrome_trace(in, "bench.json", [&](const TraceEvent& e) { builder.add(e); });
    const auto timeline = std::move(builder).finish();
    const auto m = measure(timeline, 0, timeline.ranks);
    benchmark::DoNotOptimize(compare(m, m).rows.size());
    events += stats.events;
  }
  state.counters["events_per_second"] = benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["bytes_per_event"] =
      static_cast<double>(text.size()) / (static_cast<double>(events) / static_cast<double>(state.iterations()));
  state.SetBytesProcessed(static_cast<int64_t>(text.size()) * state.iterations());
}

}  // namespace

BENCHMARK_CAPTURE(compare_trace, distinct_names, true)->Arg(1 << 17)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(compare_trace, repeated_names, false)->Arg(1 << 17)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
