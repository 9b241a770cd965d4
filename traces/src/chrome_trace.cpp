#include "mhcsim/traces/chrome_trace.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <istream>
#include <limits>
#include <map>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "bounded_json_streambuf.h"
#include "gzip_streambuf.h"
#include "mhcsim/error.h"
#include "mhcsim/input_file.h"

namespace mhcsim::traces {
namespace {

using json = nlohmann::json;

// The fields of one event as they arrive; types are checked once the event is complete, since
// only duration events must carry a ts (and complete events a dur). Strings keep their
// capacity from one event to the next (and trade buffers with nlohmann's lexer).
struct PendingEvent {
  TraceEvent event;
  std::string ph;
  std::optional<double> ts, dur;
  const char* ts_type = nullptr;  // JSON type seen for ts / dur when it was not a number
  const char* dur_type = nullptr;
  void clear() {
    event.name.clear();
    event.cat.clear();
    event.pid.clear();
    event.tid.clear();
    event.correlation = -1;
    ph.clear();
    ts.reset();
    dur.reset();
    ts_type = dur_type = nullptr;
  }
};

// SAX handler for nlohmann::json::sax_parse. It builds no JSON values: keys are compared in
// place, the strings kept (name, cat, ph, pid, tid) are swapped out of the lexer's buffer, and
// everything else is dropped as it arrives. depth_ counts the open objects and arrays; the
// events array's elements sit at events_depth_ (1 for a bare array, 2 inside the root object),
// an event's members one deeper, and args' members one deeper still (only args.correlation is
// kept). Deeper values (stack frames, grids) only move depth_.
class TraceSax {
 public:
  TraceSax(BoundedJsonStreambuf& stream, std::string file, const EventSink& sink, int64_t max_events)
      : stream_(stream), file_(std::move(file)), sink_(sink), max_events_(max_events) {}

  bool null() { return scalar("null"); }
  bool boolean(bool) { return scalar("a boolean"); }
  bool binary(json::binary_t&) { return scalar("binary"); }

  bool number_integer(json::number_integer_t v) {
    stream_.mark();
    if (!at_member()) return outside_event("a number");
    if (where_ == Where::Args) {
      if (field_ == Field::Correlation && v >= 0) ev_.event.correlation = v;
      return true;
    }
    switch (field_) {
      case Field::Ts:
        ev_.ts = static_cast<double>(v);
        break;
      case Field::Dur:
        ev_.dur = static_cast<double>(v);
        break;
      case Field::Pid:
        integer_id(ev_.event.pid, v);
        break;
      case Field::Tid:
        integer_id(ev_.event.tid, v);
        break;
      default:
        break;
    }
    return true;
  }
  bool number_unsigned(json::number_unsigned_t v) {
    // Only integers past int64's range are not written as they are read.
    if (v <= static_cast<json::number_unsigned_t>(std::numeric_limits<int64_t>::max()))
      return number_integer(static_cast<int64_t>(v));
    return number_float(static_cast<double>(v), no_text_);
  }
  bool number_float(json::number_float_t v, const json::string_t&) {
    stream_.mark();
    if (!at_member()) return outside_event("a number");
    if (where_ == Where::Args) return true;  // a correlation that is not an id: ignored
    switch (field_) {
      case Field::Ts:
        ev_.ts = v;
        break;
      case Field::Dur:
        ev_.dur = v;
        break;
      case Field::Pid:
        float_id(ev_.event.pid, v);
        break;
      case Field::Tid:
        float_id(ev_.event.tid, v);
        break;
      default:
        break;
    }
    return true;
  }

  bool string(json::string_t& v) {
    stream_.mark();
    if (!at_member()) return outside_event("a string");
    if (where_ == Where::Args) return true;
    // Swapped, not copied: the lexer clears its buffer before the next token and keeps the
    // capacity of ours, so reading allocates nothing once the buffers have grown.
    switch (field_) {
      case Field::Name:
        ev_.event.name.swap(v);
        break;
      case Field::Cat:
        ev_.event.cat.swap(v);
        break;
      case Field::Ph:
        ev_.ph.swap(v);
        break;
      case Field::Pid:
        check_id(v, "pid");
        ev_.event.pid.swap(v);
        break;
      case Field::Tid:
        check_id(v, "tid");
        ev_.event.tid.swap(v);
        break;
      case Field::Ts:
        ev_.ts_type = "a string";
        break;
      case Field::Dur:
        ev_.dur_type = "a string";
        break;
      default:
        break;
    }
    return true;
  }

  bool key(json::string_t& k) {
    stream_.mark();
    if (depth_ == events_depth_ + 1 && in_events_) {
      field_ = where_ == Where::Event ? event_field(k) : args_field(k);
    } else if (depth_ == 1 && !in_events_) {
      events_key_ = k.size() == 11 && std::memcmp(k.data(), "traceEvents", 11) == 0;
    }
    return true;
  }

  bool start_object(std::size_t) {
    if (in_events_) {
      if (depth_ == events_depth_) {
        ev_.clear();
        field_ = Field::Other;
        where_ = Where::Event;
        nest();
        return true;
      }
      if (depth_ == events_depth_ + 1 && where_ == Where::Event) {
        if (field_ == Field::Args) {
          where_ = Where::Args;
          field_ = Field::Other;
          // the args object's members are compared at depth_ == events_depth_ + 1 + 1
          ++events_depth_;
          nest();
          return true;
        }
        time_type("an object");
      }
    } else if (depth_ == 1 && events_key_) {
      not_an_array("an object");
    }
    nest();
    return true;
  }
  bool end_object() {
    --depth_;
    if (in_events_) {
      if (where_ == Where::Args && depth_ == events_depth_) {  // args closed
        --events_depth_;
        where_ = Where::Event;
        field_ = Field::Other;
      } else if (depth_ == events_depth_) {
        where_ = Where::None;
        finish_event();
      }
    }
    return true;
  }
  bool start_array(std::size_t) {
    if (!in_events_) {
      if (depth_ == 0)
        start_events(0);  // JSON Array Format: the file is the events array
      else if (depth_ == 1 && events_key_)
        start_events(1);
    } else if (depth_ == events_depth_ + 1 && where_ == Where::Event) {
      time_type("an array");
    }
    nest();
    return true;
  }
  bool end_array() {
    --depth_;
    if (in_events_ && depth_ == events_depth_ - 1) in_events_ = false;
    return true;
  }

  // A trace is a few levels deep (root, traceEvents, event, args, a stack or grid in the args);
  // a run of brackets is refused here, before nlohmann's parser tracks millions of levels.
  static constexpr int kMaxNesting = 256;
  void nest() {
    if (depth_ >= kMaxNesting)
      throw InputError("", fmt::format("nesting deeper than {} levels", kMaxNesting), {file_, 0});
    ++depth_;
  }

  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    // An overflowing number's message quotes it (up to 16 MiB of the input): say where instead.
    if (e.id == 406)
      throw InputError("", fmt::format("not valid JSON: number overflow at byte {}", position), {file_, 0});
    throw InputError("", "not valid JSON: " + json_syntax_error(e.what()), {file_, 0});
  }

  ReadStats finish() {
    if (!found_events_)
      throw InputError("traceEvents",
                       "missing (expected a Chrome trace: an object with a traceEvents "
                       "array of events, or an array of events)",
                       {file_, 0});
    for (const auto& [thread, open] : open_) stats_.unmatched_begin_end += static_cast<int64_t>(open.size());
    return stats_;
  }

 private:
  enum class Field : uint8_t { Name, Cat, Ph, Pid, Tid, Ts, Dur, Args, Correlation, Other };
  // Where the members being read belong: an event, its args, or neither.
  enum class Where : uint8_t { None, Event, Args };

  static bool is(const json::string_t& k, const char* lit, size_t n) { return std::memcmp(k.data(), lit, n) == 0; }
  static Field event_field(const json::string_t& k) {
    switch (k.size()) {
      case 2:
        return is(k, "ph", 2) ? Field::Ph : is(k, "ts", 2) ? Field::Ts : Field::Other;
      case 3:
        return is(k, "cat", 3)   ? Field::Cat
               : is(k, "pid", 3) ? Field::Pid
               : is(k, "tid", 3) ? Field::Tid
               : is(k, "dur", 3) ? Field::Dur
                                 : Field::Other;
      case 4:
        return is(k, "name", 4) ? Field::Name : is(k, "args", 4) ? Field::Args : Field::Other;
      default:
        return Field::Other;
    }
  }
  static Field args_field(const json::string_t& k) {
    return k.size() == 11 && is(k, "correlation", 11) ? Field::Correlation : Field::Other;
  }

  // A value directly inside an event or its args (a member's value).
  bool at_member() const { return in_events_ && depth_ == events_depth_ + 1 && where_ != Where::None; }

  // A scalar value: a type error if it stands where the events array should, else recorded as
  // the type of ts / dur when it is one of them.
  bool scalar(const char* type) {
    if (!at_member()) return outside_event(type);
    if (where_ == Where::Event) time_type(type);
    return true;
  }
  bool outside_event(const char* type) const {
    if (!in_events_ && depth_ == 1 && events_key_) not_an_array(type);
    return true;
  }
  void time_type(const char* type) {
    if (field_ == Field::Ts)
      ev_.ts_type = type;
    else if (field_ == Field::Dur)
      ev_.dur_type = type;
  }

  void start_events(int depth) {
    in_events_ = found_events_ = true;
    events_depth_ = depth + 1;
    events_key_ = false;
    where_ = Where::None;
  }
  [[noreturn]] void not_an_array(const char* got) const {
    throw InputError("traceEvents", fmt::format("expected an array of events (got {})", got), {file_, 0});
  }

  // Ids are kept as text: an integer as written, another number as fmt prints it.
  static void integer_id(std::string& id, int64_t v) {
    char buf[24];
    const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    id.assign(buf, end);
  }
  static void float_id(std::string& id, double v) {
    id.clear();
    fmt::format_to(std::back_inserter(id), "{}", v);
  }

  // Streams are kept by (pid, tid) for the whole trace: ids are short in every real trace.
  void check_id(const std::string& v, const char* field) const {
    constexpr size_t kMaxIdChars = 256;
    if (v.size() > kMaxIdChars)
      throw InputError(
          fmt::format("traceEvents[{}].{}", stats_.events, field),
          fmt::format("{} characters long (expected a process / thread id of at most {})", v.size(), kMaxIdChars),
          {file_, 0});
  }

  std::string event_key(const char* field) const { return fmt::format("traceEvents[{}].{}", stats_.events - 1, field); }
  // A time field of a duration event: a finite number (microseconds), >= 0 for durations.
  double time_field(const std::optional<double>& v, const char* type, const char* field, bool duration) const {
    if (!v)
      throw InputError(event_key(field),
                       fmt::format("expected a number of microseconds (got {})", type ? type : "nothing"), {file_, 0});
    if (!std::isfinite(*v) || (duration && *v < 0))
      throw InputError(
          event_key(field),
          fmt::format("{} is out of range (expected a finite number{} of microseconds)", *v, duration ? " >= 0" : ""),
          {file_, 0});
    return *v;
  }

  void finish_event() {
    if (++stats_.events > max_events_)
      throw InputError("traceEvents",
                       fmt::format("more than {} events (raise the limit with --max-trace-events)", max_events_),
                       {file_, 0});
    if (ev_.ph.size() != 1) return;
    switch (ev_.ph[0]) {
      case 'X':
        ev_.event.ts_us = time_field(ev_.ts, ev_.ts_type, "ts", false);
        ev_.event.dur_us = time_field(ev_.dur, ev_.dur_type, "dur", true);
        ++stats_.complete_events;
        sink_(ev_.event);
        return;
      case 'B': {
        ev_.event.ts_us = time_field(ev_.ts, ev_.ts_type, "ts", false);
        open_[{ev_.event.pid, ev_.event.tid}].push_back(ev_.event);
        return;
      }
      case 'E': {
        const double end = time_field(ev_.ts, ev_.ts_type, "ts", false);
        const auto it = open_.find({ev_.event.pid, ev_.event.tid});
        if (it == open_.end() || it->second.empty()) {
          ++stats_.unmatched_begin_end;
          return;
        }
        TraceEvent& begin = it->second.back();
        if (end < begin.ts_us)
          throw InputError(event_key("ts"),
                           fmt::format("{} is before its B event's ts {} (expected E after B on "
                                       "the same pid and tid)",
                                       end, begin.ts_us),
                           {file_, 0});
        begin.dur_us = end - begin.ts_us;
        if (begin.correlation < 0) begin.correlation = ev_.event.correlation;
        ++stats_.begin_end_pairs;
        sink_(begin);
        it->second.pop_back();
        if (it->second.empty()) open_.erase(it);
        return;
      }
      default:
        return;
    }
  }

  BoundedJsonStreambuf& stream_;  // told where each string and number ends
  std::string file_;
  const EventSink& sink_;
  int64_t max_events_;
  int depth_ = 0;
  int events_depth_ = -1;    // depth of the events array's elements (+1 while inside args)
  bool events_key_ = false;  // the last root key was "traceEvents"
  bool in_events_ = false;
  bool found_events_ = false;
  Where where_ = Where::None;
  Field field_ = Field::Other;  // the member being read (of the event, or of its args)
  json::string_t no_text_;
  PendingEvent ev_;
  // B events not yet ended, per (pid, tid): nested ranges close innermost first.
  std::map<std::pair<std::string, std::string>, std::vector<TraceEvent>> open_;
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
  TraceSax sax(bounded, file_name, sink, limits.max_events);
  try {
    json::sax_parse(json_in, &sax);
  } catch (const InputError&) {
    check_stream();
    throw;
  }
  check_stream();
  return sax.finish();
}

ReadStats read_chrome_trace_file(const std::filesystem::path& path, const EventSink& sink, const TraceLimits& limits) {
  InputFile file(path, {.what = "trace file", .max_bytes = limits.max_bytes, .raise_flag = "--max-trace-bytes"});
  try {
    return read_chrome_trace(file.stream(), path.string(), sink, limits);
  } catch (const InputError&) {
    if (!file.stream_error().empty()) file.fail(fmt::format("cannot read trace file ({})", file.stream_error()));
    throw;
  }
}

}  // namespace mhcsim::traces
