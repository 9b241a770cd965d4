#include "mhcsim/traces/kernel_timeline.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>

#include "mhcsim/error.h"
#include "mhcsim/units.h"

namespace mhcsim::traces {
namespace {

// Numeric pids sort as numbers (rank 2 before rank 10), the rest after them as text.
bool as_number(const std::string& s, double& v) {
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  return ec == std::errc{} && end == s.data() + s.size() && std::isfinite(v);
}

bool pid_less(const std::string& a, const std::string& b) {
  double x = 0, y = 0;
  const bool na = as_number(a, x);
  const bool nb = as_number(b, y);
  if (na != nb) return na;
  return na ? (x != y ? x < y : a < b) : a < b;
}

}  // namespace

void KernelTimelineBuilder::add(const TraceEvent& e) {
  const auto cls = classifier_.classify(e.name, e.cat);
  if (!cls) {
    ++timeline_.ignored_events;
    return;
  }
  auto [it, inserted] = stream_index_.try_emplace({e.pid, e.tid}, static_cast<int32_t>(stream_pid_.size()));
  if (inserted && stream_pid_.size() == kMaxTraceStreams) {
    stream_index_.erase(it);
    throw InputError("traceEvents", fmt::format("kernels on more than {} (pid, tid) streams (expected one "
                                                "pid per GPU and a few tids per pid)", kMaxTraceStreams));
  }
  if (inserted) {
    stream_pid_.push_back(e.pid);
    timeline_.streams.push_back({0, fmt::format("pid {} tid {}", e.pid, e.tid)});
  }
  // Times relative to the first kernel: Kineto's ts are ~1e15 us since an epoch, where a
  // double's spacing is ~0.1 us; rebasing before converting keeps durations intact.
  if (!base_us_) base_us_ = e.ts_us;
  const double start = (e.ts_us - *base_us_) * kUs;
  timeline_.spans.push_back({start, start + e.dur_us * kUs, it->second, *cls});
}

KernelTimeline KernelTimelineBuilder::finish() && {
  std::vector<std::string> pids = stream_pid_;
  std::sort(pids.begin(), pids.end(), pid_less);
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  for (size_t s = 0; s < stream_pid_.size(); ++s)
    timeline_.streams[s].rank = static_cast<int32_t>(
        std::lower_bound(pids.begin(), pids.end(), stream_pid_[s], pid_less) - pids.begin());
  timeline_.ranks = static_cast<int32_t>(pids.size());
  return std::move(timeline_);
}

KernelTimeline read_kernel_timeline(const std::filesystem::path& trace, const ClassPatterns& patterns,
                                    const TraceLimits& limits) {
  KernelTimelineBuilder builder(patterns);
  try {
    read_chrome_trace_file(trace, [&](const TraceEvent& e) { builder.add(e); }, limits);
  } catch (const InputError& e) {
    if (!e.where().file.empty()) throw;
    throw InputError(e.key(), e.reason(), {trace.string(), 0});  // the builder's: name the file
  }
  return std::move(builder).finish();
}

}  // namespace mhcsim::traces
