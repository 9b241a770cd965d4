#include "mhcsim/traces/chrome_trace.h"

#include <fmt/format.h>

#include <cmath>
#include <istream>
#include <optional>

#include <nlohmann/json.hpp>

#include "bounded_json_streambuf.h"
#include "gzip_streambuf.h"
#include "mhcsim/error.h"
#include "mhcsim/input_file.h"

namespace mhcsim::traces {
namespace {

using json = nlohmann::json;

// The fields of one event as they arrive; types are checked once the event is complete, since
// only complete events ("X") must carry a ts and a dur.
struct PendingEvent {
  TraceEvent event;
  std::string ph;
  std::optional<double> ts, dur;
  const char* ts_type = nullptr;   // JSON type seen for ts / dur when it was not a number
  const char* dur_type = nullptr;
  void clear() { *this = PendingEvent{}; }
};

// SAX handler. Depth counts open objects and arrays; the events array sits at depth 1 inside
// the root object (depth 0 for a bare array), each event object one deeper, and anything
// deeper (args, stack frames) is skipped.
class TraceSax {
 public:
  TraceSax(std::string file, const EventSink& sink, int64_t max_events)
      : file_(std::move(file)), sink_(sink), max_events_(max_events) {}

  bool null() { return scalar("null"); }
  bool boolean(bool) { return scalar("a boolean"); }
  bool number_integer(json::number_integer_t v) { return number(static_cast<double>(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return number(static_cast<double>(v)); }
  bool number_float(json::number_float_t v, const json::string_t&) { return number(v); }
  bool binary(json::binary_t&) { return scalar("binary"); }

  bool string(json::string_t& v) {
    if (!at_event_field()) return scalar("a string");
    if (key_ == "name") pending_.event.name = std::move(v);
    else if (key_ == "cat") pending_.event.cat = std::move(v);
    else if (key_ == "ph") pending_.ph = std::move(v);
    else if (key_ == "pid") pending_.event.pid = stream_id(std::move(v));
    else if (key_ == "tid") pending_.event.tid = stream_id(std::move(v));
    else return scalar("a string");
    return true;
  }

  bool start_object(std::size_t) {
    if (in_events_ && depth_ == events_depth_) pending_.clear();
    else if (depth_ == 1 && events_key_) not_an_array("an object");
    return open();
  }
  bool end_object() {
    --depth_;
    if (in_events_ && depth_ == events_depth_) finish_event();
    return true;
  }
  bool start_array(std::size_t) {
    if (depth_ == 0) start_events(0);  // JSON Array Format: the file is the events array
    else if (depth_ == 1 && events_key_) start_events(1);
    return open();
  }
  bool end_array() {
    --depth_;
    if (in_events_ && depth_ == events_depth_ - 1) in_events_ = false;
    return true;
  }
  bool key(json::string_t& k) {
    if (depth_ == 1 && !in_events_) events_key_ = (k == "traceEvents");
    if (at_event_depth()) key_ = std::move(k);
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    throw InputError("", "not valid JSON: " + json_syntax_error(e.what()), {file_, 0});
  }

  void finish(ReadStats& stats) const {
    if (!found_events_)
      throw InputError("traceEvents", "missing (expected a Chrome trace: an object with a traceEvents "
                                      "array of events, or an array of events)", {file_, 0});
    stats = stats_;
  }

 private:
  bool open() {
    ++depth_;
    return true;
  }
  bool at_event_depth() const { return in_events_ && depth_ == events_depth_ + 1; }
  bool at_event_field() const { return at_event_depth() && !key_.empty(); }

  void start_events(int depth) {
    in_events_ = found_events_ = true;
    events_depth_ = depth + 1;
    events_key_ = false;
  }
  void not_an_array(const char* got) const {
    throw InputError("traceEvents", fmt::format("expected an array of events (got {})", got), {file_, 0});
  }

  bool scalar(const char* type) {
    if (depth_ == 1 && events_key_) not_an_array(type);
    if (!at_event_field()) return true;
    if (key_ == "ts") pending_.ts_type = type;
    else if (key_ == "dur") pending_.dur_type = type;
    return true;
  }
  bool number(double v) {
    if (depth_ == 1 && events_key_) not_an_array("a number");
    if (!at_event_field()) return true;
    if (key_ == "ts") pending_.ts = v;
    else if (key_ == "dur") pending_.dur = v;
    else if (key_ == "pid") pending_.event.pid = fmt::format("{}", v);
    else if (key_ == "tid") pending_.event.tid = fmt::format("{}", v);
    return true;
  }

  // Streams are kept by (pid, tid) for the whole trace: ids are short in every real trace.
  std::string stream_id(std::string v) const {
    constexpr size_t kMaxIdChars = 256;
    if (v.size() > kMaxIdChars)
      throw InputError(fmt::format("traceEvents[{}].{}", stats_.events, key_),
                       fmt::format("{} characters long (expected a process / thread id of at most {})", v.size(),
                                   kMaxIdChars), {file_, 0});
    return v;
  }

  std::string event_key(const char* field) const {
    return fmt::format("traceEvents[{}].{}", stats_.events - 1, field);
  }
  // A time field of a complete event: a finite number (microseconds), >= 0 for durations.
  double time_field(const std::optional<double>& v, const char* type, const char* field, bool duration) const {
    if (!v)
      throw InputError(event_key(field),
                       fmt::format("expected a number of microseconds (got {})", type ? type : "nothing"),
                       {file_, 0});
    if (!std::isfinite(*v) || (duration && *v < 0))
      throw InputError(event_key(field),
                       fmt::format("{} is out of range (expected a finite number{} of microseconds)", *v,
                                   duration ? " >= 0" : ""),
                       {file_, 0});
    return *v;
  }

  void finish_event() {
    if (++stats_.events > max_events_)
      throw InputError("traceEvents", fmt::format("more than {} events (raise the limit with --max-trace-events)",
                                                  max_events_), {file_, 0});
    key_.clear();
    if (pending_.ph != "X") return;
    pending_.event.ts_us = time_field(pending_.ts, pending_.ts_type, "ts", false);
    pending_.event.dur_us = time_field(pending_.dur, pending_.dur_type, "dur", true);
    ++stats_.complete_events;
    sink_(pending_.event);
  }

  std::string file_;
  const EventSink& sink_;
  int64_t max_events_;
  int depth_ = 0;
  int events_depth_ = -1;     // depth of the events array's contents
  bool events_key_ = false;   // the last root key was "traceEvents"
  bool in_events_ = false;
  bool found_events_ = false;
  std::string key_;           // current key inside an event
  PendingEvent pending_;
  ReadStats stats_;
};

}  // namespace

ReadStats read_chrome_trace(std::istream& in, const std::string& file_name, const EventSink& sink,
                            const TraceLimits& limits) {
  std::streambuf* source = in.rdbuf();
  if (source == nullptr) throw InputError("", "cannot read trace", {file_name, 0});
  std::optional<GzipStreambuf> gz;
  if (starts_with_gzip_magic(*source)) source = &gz.emplace(*source);
  BoundedJsonStreambuf bounded(*source, limits.max_bytes, kMaxTraceTokenBytes);
  std::istream json_in(&bounded);
  // A stream that stopped early (corrupt gzip, a limit) shows as a JSON error at the cut:
  // report why it stopped instead.
  const auto check_stream = [&] {
    if (gz && !gz->error().empty()) throw InputError("", gz->error(), {file_name, 0});
    if (!bounded.error().empty()) throw InputError("", bounded.error(), {file_name, 0});
  };
  TraceSax sax(file_name, sink, limits.max_events);
  ReadStats stats;
  try {
    json::sax_parse(json_in, &sax);
  } catch (const InputError&) {
    check_stream();
    throw;
  }
  check_stream();
  sax.finish(stats);
  return stats;
}

ReadStats read_chrome_trace_file(const std::filesystem::path& path, const EventSink& sink,
                                 const TraceLimits& limits) {
  InputFile file(path, {.what = "trace file", .max_bytes = limits.max_bytes, .raise_flag = "--max-trace-bytes"});
  try {
    return read_chrome_trace(file.stream(), path.string(), sink, limits);
  } catch (const InputError&) {
    if (!file.stream_error().empty()) file.fail(fmt::format("cannot read trace file ({})", file.stream_error()));
    throw;
  }
}

}  // namespace mhcsim::traces
