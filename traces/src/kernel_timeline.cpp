#include "mhcsim/traces/kernel_timeline.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <functional>
#include <map>
#include <queue>

#include "mhcsim/error.h"
#include "mhcsim/units.h"

namespace mhcsim::traces {
namespace {

using Range = KernelTimelineBuilder::Range;
using RangeKind = KernelTimelineBuilder::RangeKind;
using Launch = KernelTimelineBuilder::Launch;

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

bool is_launch_category(const std::string& cat) {
  return cat == "cuda_runtime" || cat == "cuda_driver" || cat == "Runtime";
}

[[noreturn]] void too_many(const char* what) {
  throw InputError("traceEvents", fmt::format("{} on more than {} (pid, tid) pairs (expected one pid per GPU "
                                              "and a few tids per pid)",
                                              what, kMaxTraceStreams));
}

// The index of an event's (pid, tid) in `index` (keyed "pid\0tid", built in `key`), remembered
// in `last` for the next event; `add(key)` makes the index of a new one.
template <class Last, class Add>
int32_t pid_tid_id(const TraceEvent& e, std::string& key, Last& last, std::unordered_map<std::string, int32_t>& index,
                   Add add) {
  if (last.is(e)) return last.id;
  key.assign(e.pid).push_back('\0');
  key.append(e.tid);
  int32_t id = 0;
  if (const auto it = index.find(key); it != index.end()) {
    id = it->second;
  } else {
    id = add(key);
    index.emplace(key, id);
  }
  last.set(e, id);
  return id;
}

// The innermost range around each point, per group: points and ranges sorted by (group, time);
// among the ranges begun at or before the point and not yet ended, the latest begun (a max-heap
// by start with lazy removal of ended ranges, each pushed and popped once). `found(point,
// range)` is called for each point inside one.
struct Point {
  int64_t group = 0;
  double t = 0;
  uint32_t index = 0;  // the caller's
};
template <class Found>
void innermost(LargeVector<Point>& points, std::vector<std::pair<int64_t, const Range*>>& ranges, Found found) {
  std::sort(points.begin(), points.end(),
            [](const Point& a, const Point& b) { return a.group != b.group ? a.group < b.group : a.t < b.t; });
  std::sort(ranges.begin(), ranges.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second->start_us < b.second->start_us;
  });
  using Open = std::pair<double, const Range*>;  // (start, range)
  std::priority_queue<Open, std::vector<Open>, std::less<>> open;
  size_t r = 0;
  int64_t group = INT64_MIN;
  for (const Point& p : points) {
    if (p.group != group) {
      group = p.group;
      open = {};
      while (r < ranges.size() && ranges[r].first < group) ++r;
    }
    while (r < ranges.size() && ranges[r].first == group && ranges[r].second->start_us <= p.t) {
      open.emplace(ranges[r].second->start_us, ranges[r].second);
      ++r;
    }
    while (!open.empty() && open.top().second->end_us < p.t) open.pop();
    if (!open.empty()) found(p, *open.top().second);
  }
}

}  // namespace

double KernelTimelineBuilder::rel_us(double ts_us) {
  // Times relative to the first event: Kineto's ts are ~1e15 us since an epoch, where a
  // double's spacing is ~0.1 us; rebasing before converting keeps durations intact.
  if (!base_us_) base_us_ = ts_us;
  return ts_us - *base_us_;
}

int32_t KernelTimelineBuilder::stream_of(const TraceEvent& e) {
  return pid_tid_id(e, key_, last_stream_, stream_index_, [&](const std::string&) {
    if (stream_pid_.size() == kMaxTraceStreams) too_many("kernels");
    stream_pid_.push_back(e.pid);
    timeline_.streams.push_back({0, fmt::format("pid {} tid {}", e.pid, e.tid)});
    return static_cast<int32_t>(stream_pid_.size() - 1);
  });
}

int32_t KernelTimelineBuilder::thread_of(const TraceEvent& e) {
  return pid_tid_id(e, key_, last_thread_, thread_index_, [&](const std::string& key) {
    if (thread_key_.size() == kMaxTraceStreams) too_many("launches and annotations");
    thread_key_.push_back(key);
    return static_cast<int32_t>(thread_key_.size() - 1);
  });
}

std::string_view KernelTimelineBuilder::store(const std::string& name) {
  // Names are appended to blocks of (at least) one huge page that never reallocate, so the
  // views into them stay valid.
  auto& blocks = timeline_.name_storage;
  if (blocks.empty() || blocks.back().capacity() - blocks.back().size() < name.size())
    blocks.emplace_back().reserve(std::max(kHugePageBytes, name.size()));
  auto& block = blocks.back();
  const size_t at = block.size();
  block.insert(block.end(), name.begin(), name.end());
  return {block.data() + at, name.size()};
}

void KernelTimelineBuilder::grow_names() {
  LargeVector<NameSlot> slots(name_slots_.empty() ? size_t{1} << 10 : name_slots_.size() * 2);
  const size_t mask = slots.size() - 1;
  for (const NameSlot& s : name_slots_) {
    if (s.id == kNoName) continue;
    size_t i = s.hash & mask;
    while (slots[i].id != kNoName) i = (i + 1) & mask;
    slots[i] = s;
  }
  name_slots_ = std::move(slots);
}

uint32_t KernelTimelineBuilder::name_of(const std::string& name) {
  // At most half full, so probes are short and end at an empty slot.
  if (2 * (timeline_.names.size() + 1) > name_slots_.size()) grow_names();
  const auto hash = static_cast<uint32_t>(std::hash<std::string_view>{}(name));
  const size_t mask = name_slots_.size() - 1;
  size_t i = hash & mask;
  for (; name_slots_[i].id != kNoName; i = (i + 1) & mask)
    if (name_slots_[i].hash == hash && timeline_.names[name_slots_[i].id] == name) return name_slots_[i].id;
  const auto id = static_cast<uint32_t>(timeline_.names.size());
  if (id == kNoName) throw InputError("traceEvents", "more than 2^32 - 1 distinct kernel names");
  timeline_.names.push_back(store(name));
  name_slots_[i] = {hash, id};
  name_class_.push_back(classifier_.kernel_class(name));
  return id;
}

std::optional<AnnotationClass> KernelTimelineBuilder::annotation_of(const std::string& name) {
  constexpr size_t kMaxCached = size_t{1} << 16;
  if (const auto it = annotation_cache_.find(name); it != annotation_cache_.end()) return it->second;
  const auto a = classifier_.annotation_class(name);
  if (annotation_cache_.size() < kMaxCached && name.size() <= 4096) annotation_cache_.emplace(name, a);
  return a;
}

KernelTimelineBuilder::Role KernelTimelineBuilder::role_of(const std::string& cat) {
  // A trace has a few dozen categories: each is classified once (a bounded number of them).
  constexpr size_t kMaxCached = 64, kMaxCachedChars = 256;
  for (const auto& [c, role] : roles_)
    if (c == cat) return role;
  Role role = Role::Kernel;
  if (classifier_.ignored(cat))
    role = cat == "user_annotation"       ? Role::UserAnnotation
           : cat == "gpu_user_annotation" ? Role::GpuAnnotation
           : cat == "cpu_op"              ? Role::CpuOp
           : is_launch_category(cat)      ? Role::Launch
                                          : Role::Ignored;
  if (roles_.size() < kMaxCached && cat.size() <= kMaxCachedChars) roles_.emplace_back(cat, role);
  return role;
}

void KernelTimelineBuilder::add(const TraceEvent& e) {
  const Role role = role_of(e.cat);
  if (role != Role::Kernel) {
    ++timeline_.ignored_events;
    if (role == Role::UserAnnotation || role == Role::GpuAnnotation || role == Role::CpuOp) {
      if (const auto a = annotation_of(e.name)) {
        const double start = rel_us(e.ts_us);
        ranges_.push_back({start, start + e.dur_us, thread_of(e),
                           role == Role::UserAnnotation  ? RangeKind::UserAnnotation
                           : role == Role::GpuAnnotation ? RangeKind::GpuAnnotation
                                                         : RangeKind::CpuOp,
                           *a});
      }
    } else if (e.correlation >= 0 && role == Role::Launch) {
      launches_.push_back({e.correlation, rel_us(e.ts_us), thread_of(e)});
    }
    return;
  }
  const int32_t stream = stream_of(e);
  const uint32_t name = name_of(e.name);
  const double start = rel_us(e.ts_us) * kUs;
  const auto span = static_cast<uint32_t>(timeline_.spans.size());
  timeline_.spans.push_back({start, start + e.dur_us * kUs, stream, name, name_class_[name], Direction::Unknown});
  if (e.correlation >= 0) kernel_correlation_.emplace_back(e.correlation, span);
}

void KernelTimelineBuilder::resolve() {
  if (ranges_.empty()) return;
  timeline_.sources.annotation_ranges = static_cast<int64_t>(ranges_.size());
  auto& spans = timeline_.spans;
  // Annotation of each kernel (index into ranges_ order kept stable) and how it was found.
  LargeVector<const Range*> found(spans.size(), nullptr);
  LargeVector<uint8_t> how(spans.size(), 0);

  // 1-3: per launch, by correlation. Pids of the threads, for 2.
  if (!launches_.empty() && !kernel_correlation_.empty()) {
    std::map<std::string_view, int64_t> pid_ids;
    std::vector<int64_t> pid_of_thread(thread_key_.size());
    for (size_t t = 0; t < thread_key_.size(); ++t) {
      const std::string_view key(thread_key_[t]);
      const auto pid = key.substr(0, key.find('\0'));
      pid_of_thread[t] = pid_ids.try_emplace(pid, static_cast<int64_t>(pid_ids.size())).first->second;
    }
    LargeVector<const Range*> launch_range(launches_.size(), nullptr);
    LargeVector<uint8_t> launch_how(launches_.size(), 0);
    const auto pass = [&](RangeKind kind, bool by_process, uint8_t tag) {
      LargeVector<Point> points;
      for (uint32_t i = 0; i < launches_.size(); ++i)
        if (!launch_range[i]) {
          const auto t = static_cast<size_t>(launches_[i].thread);
          points.push_back({by_process ? pid_of_thread[t] : launches_[i].thread, launches_[i].ts_us, i});
        }
      std::vector<std::pair<int64_t, const Range*>> rs;
      for (const Range& r : ranges_)
        if (r.kind == kind) rs.emplace_back(by_process ? pid_of_thread[static_cast<size_t>(r.where)] : r.where, &r);
      if (points.empty() || rs.empty()) return;
      innermost(points, rs, [&](const Point& p, const Range& r) {
        launch_range[p.index] = &r;
        launch_how[p.index] = tag;
      });
    };
    pass(RangeKind::UserAnnotation, false, 1);
    pass(RangeKind::UserAnnotation, true, 2);
    pass(RangeKind::CpuOp, false, 3);
    // Join launches and kernels on the correlation id (sorted merge).
    LargeVector<uint32_t> order(launches_.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(),
              [&](uint32_t a, uint32_t b) { return launches_[a].correlation < launches_[b].correlation; });
    std::sort(kernel_correlation_.begin(), kernel_correlation_.end());
    size_t l = 0;
    for (const auto& [corr, span] : kernel_correlation_) {
      while (l < order.size() && launches_[order[l]].correlation < corr) ++l;
      if (l < order.size() && launches_[order[l]].correlation == corr && launch_range[order[l]]) {
        found[span] = launch_range[order[l]];
        how[span] = launch_how[order[l]];
      }
    }
  }
  // 4: GPU ranges on the kernel's own stream, by containment of its start.
  {
    std::vector<std::pair<int64_t, const Range*>> rs;
    for (const Range& r : ranges_)
      if (r.kind == RangeKind::GpuAnnotation)
        if (const auto it = stream_index_.find(thread_key_[static_cast<size_t>(r.where)]); it != stream_index_.end())
          rs.emplace_back(it->second, &r);
    if (!rs.empty()) {
      LargeVector<Point> points;
      for (uint32_t i = 0; i < spans.size(); ++i)
        if (!found[i]) points.push_back({spans[i].stream, spans[i].start_seconds / kUs, i});
      innermost(points, rs, [&](const Point& p, const Range& r) {
        found[p.index] = &r;
        how[p.index] = 4;
      });
    }
  }
  // Apply: the annotation decides within the kernel's kind (compute or communication).
  auto& src = timeline_.sources;
  for (size_t i = 0; i < spans.size(); ++i) {
    if (!found[i]) continue;
    const AnnotationClass a = found[i]->cls;
    spans[i].direction = a.direction;
    if (is_communication(a.op_class) == is_communication(spans[i].op_class))
      spans[i].op_class = a.op_class;
    else
      ++src.kept_name_class;
    (how[i] == 1   ? src.by_launch_thread
     : how[i] == 2 ? src.by_launch_process
     : how[i] == 3 ? src.by_cpu_op
                   : src.by_gpu_range)++;
  }
}

KernelTimeline KernelTimelineBuilder::finish() && {
  resolve();
  std::vector<std::string> pids = stream_pid_;
  std::sort(pids.begin(), pids.end(), pid_less);
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  for (size_t s = 0; s < stream_pid_.size(); ++s)
    timeline_.streams[s].rank =
        static_cast<int32_t>(std::lower_bound(pids.begin(), pids.end(), stream_pid_[s], pid_less) - pids.begin());
  timeline_.ranks = static_cast<int32_t>(pids.size());
  return std::move(timeline_);
}

std::vector<KernelNameRow> kernel_list(const KernelTimeline& t) {
  // One row per name for its first (class, direction); the rare others in a map.
  constexpr uint32_t kUnset = UINT32_MAX;
  std::vector<uint32_t> first(t.names.size(), kUnset);
  std::vector<KernelNameRow> rows;
  std::map<std::tuple<uint32_t, OpClass, Direction>, size_t> more;
  for (const auto& s : t.spans) {
    if (s.name == kNoName || s.name >= t.names.size()) continue;
    size_t row = first[s.name];
    if (row == kUnset) {
      row = first[s.name] = static_cast<uint32_t>(rows.size());
      rows.push_back({std::string(), s.op_class, s.direction, 0, 0});
    } else if (rows[row].op_class != s.op_class || rows[row].direction != s.direction) {
      const auto [it, inserted] = more.try_emplace({s.name, s.op_class, s.direction}, rows.size());
      if (inserted) rows.push_back({std::string(), s.op_class, s.direction, 0, 0});
      row = it->second;
    }
    rows[row].count += 1;
    rows[row].total_seconds += s.end_seconds - s.start_seconds;
  }
  for (size_t n = 0; n < first.size(); ++n)
    if (first[n] != kUnset) rows[first[n]].name = std::string(t.names[n]);
  for (const auto& [key, row] : more) rows[row].name = std::string(t.names[std::get<0>(key)]);
  std::sort(rows.begin(), rows.end(), [](const KernelNameRow& a, const KernelNameRow& b) {
    return a.total_seconds != b.total_seconds ? a.total_seconds > b.total_seconds : a.name < b.name;
  });
  return rows;
}

KernelTimeline read_kernel_timeline(const std::filesystem::path& trace, const ClassPatterns& patterns,
                                    const TraceLimits& limits) {
  KernelTimelineBuilder builder(patterns);
  try {
    read_chrome_trace_file(
        trace, [&](const TraceEvent& e) { builder.add(e); }, limits);
  } catch (const InputError& e) {
    if (!e.where().file.empty()) throw;
    throw InputError(e.key(), e.reason(), {trace.string(), 0});  // the builder's: name the file
  }
  return std::move(builder).finish();
}

}  // namespace mhcsim::traces
