#include "mhcsim/traces/chrome_trace.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <istream>
#include <map>
#include <optional>
#include <vector>

#include "gzip_streambuf.h"
#include "mhcsim/error.h"
#include "mhcsim/input_file.h"
#include "trace_json.h"

namespace mhcsim::traces {
namespace {

using detail::JsonLexer;

// The fields of one event as they arrive; types are checked once the event is complete, since
// only duration events must carry a ts (and complete events a dur). Strings keep their
// capacity from one event to the next.
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

class TraceReader {
 public:
  TraceReader(JsonLexer& lex, std::string file, const EventSink& sink, int64_t max_events)
      : lex_(lex), file_(std::move(file)), sink_(sink), max_events_(max_events) {}

  ReadStats read() {
    const char c = lex_.peek();
    if (c == '[') {
      read_events();  // JSON Array Format: the file is the events array
    } else if (c == '{') {
      lex_.expect('{', "'{'");
      if (lex_.peek() == '}') {
        lex_.expect('}', "'}'");
      } else {
        do {
          lex_.read_string(key_);
          lex_.expect(':', "':' after a key");
          if (key_ == "traceEvents") {
            if (lex_.peek() != '[')
              throw InputError("traceEvents", fmt::format("expected an array of events (got {})", lex_.type_name()),
                               {file_, 0});
            read_events();
          } else {
            lex_.skip_value();
          }
        } while (lex_.next_in('}'));
      }
    } else {
      lex_.syntax_error(c == 0 ? "unexpected end of input; expected '[' or '{'" : "expected '[' or '{'");
    }
    if (lex_.peek() != 0) lex_.syntax_error("unexpected content after the trace");
    if (!found_events_)
      throw InputError("traceEvents", "missing (expected a Chrome trace: an object with a traceEvents "
                                      "array of events, or an array of events)", {file_, 0});
    for (const auto& [thread, open] : open_) stats_.unmatched_begin_end += static_cast<int64_t>(open.size());
    return stats_;
  }

 private:
  void read_events() {
    found_events_ = true;
    lex_.expect('[', "'['");
    if (lex_.peek() == ']') return lex_.expect(']', "']'");
    do {
      if (lex_.peek() == '{') {
        read_event();
        finish_event();
      } else {
        lex_.skip_value();  // not an event: nothing to keep
      }
    } while (lex_.next_in(']'));
  }

  void read_event() {
    ev_.clear();
    lex_.expect('{', "'{'");
    if (lex_.peek() == '}') return lex_.expect('}', "'}'");
    do {
      const std::string_view key = lex_.read_key();
      field_ = field_of(key);
      if (field_ == Field::Other) {
        lex_.expect(':', "':' after a key");
        lex_.skip_value();
        continue;
      }
      lex_.expect(':', "':' after a key");
      field();
    } while (lex_.next_in('}'));
  }

  enum class Field : uint8_t { Name, Cat, Ph, Pid, Tid, Ts, Dur, Args, Other };
  static Field field_of(std::string_view k) {
    switch (k.size()) {
      case 2: return k == "ph" ? Field::Ph : k == "ts" ? Field::Ts : Field::Other;
      case 3:
        return k == "cat" ? Field::Cat : k == "pid" ? Field::Pid : k == "tid" ? Field::Tid : k == "dur" ? Field::Dur
                                                                                                    : Field::Other;
      case 4: return k == "name" ? Field::Name : k == "args" ? Field::Args : Field::Other;
      default: return Field::Other;
    }
  }
  const char* field_name() const {
    switch (field_) {
      case Field::Pid: return "pid";
      case Field::Tid: return "tid";
      case Field::Ts: return "ts";
      case Field::Dur: return "dur";
      default: return "?";
    }
  }

  // One member of an event: the value after its key.
  void field() {
    const char c = lex_.peek();
    const bool is_string = c == '"';
    const bool is_number = c == '-' || (c >= '0' && c <= '9');
    switch (field_) {
      case Field::Name:
        if (is_string) return lex_.read_string(ev_.event.name);
        break;
      case Field::Cat:
        if (is_string) return lex_.read_string(ev_.event.cat);
        break;
      case Field::Ph:
        if (is_string) return lex_.read_string(ev_.ph);
        break;
      case Field::Pid:
      case Field::Tid: {
        std::string& id = field_ == Field::Pid ? ev_.event.pid : ev_.event.tid;
        if (is_string) {
          lex_.read_string(id);
          check_id(id);
          return;
        }
        if (is_number) {
          number_ = lex_.read_number_text();
          id_of_number(id);
          return;
        }
        break;
      }
      case Field::Ts:
      case Field::Dur: {
        auto& value = field_ == Field::Ts ? ev_.ts : ev_.dur;
        if (is_number) {
          number_ = lex_.read_number_text();
          value = to_double();
          return;
        }
        (field_ == Field::Ts ? ev_.ts_type : ev_.dur_type) = lex_.type_name();
        break;
      }
      case Field::Args:
        if (c == '{') return read_args();
        break;
      case Field::Other: break;
    }
    lex_.skip_value();
  }

  // args: only `correlation` (an integer) is kept.
  void read_args() {
    lex_.expect('{', "'{'");
    if (lex_.peek() == '}') return lex_.expect('}', "'}'");
    do {
      const bool correlation = lex_.read_key() == "correlation";
      lex_.expect(':', "':' after a key");
      const char c = lex_.peek();
      if (correlation && (c == '-' || (c >= '0' && c <= '9'))) {
        number_ = lex_.read_number_text();
        int64_t v = -1;
        const auto [end, ec] = std::from_chars(number_.data(), number_.data() + number_.size(), v);
        if (ec == std::errc{} && end == number_.data() + number_.size() && v >= 0) ev_.event.correlation = v;
        else (void)to_double();  // a valid number that is not an id: ignored
      } else {
        lex_.skip_value();
      }
    } while (lex_.next_in('}'));
  }

  double to_double() const {
    double v = 0;
    const char* b = number_.data();
    const char* e = b + number_.size();
    const auto [end, ec] = std::from_chars(b, e, v);
    if (ec == std::errc::result_out_of_range) lex_.syntax_error("number overflow");
    if (ec != std::errc{} || end != e || *b == '+' || (number_.size() > 1 && b[0] == '0' && b[1] >= '0' && b[1] <= '9'))
      lex_.syntax_error("invalid number");
    return v;
  }

  // Ids are kept as text: an integer as written, another number as fmt prints it.
  void id_of_number(std::string& id) const {
    const double v = to_double();
    int64_t i = 0;
    const auto [end, ec] = std::from_chars(number_.data(), number_.data() + number_.size(), i);
    if (ec == std::errc{} && end == number_.data() + number_.size()) id.assign(number_);
    else id = fmt::format("{}", v);
  }

  // Streams are kept by (pid, tid) for the whole trace: ids are short in every real trace.
  void check_id(const std::string& v) const {
    constexpr size_t kMaxIdChars = 256;
    if (v.size() > kMaxIdChars)
      throw InputError(fmt::format("traceEvents[{}].{}", stats_.events, field_name()),
                       fmt::format("{} characters long (expected a process / thread id of at most {})", v.size(),
                                   kMaxIdChars), {file_, 0});
  }

  std::string event_key(const char* field) const {
    return fmt::format("traceEvents[{}].{}", stats_.events - 1, field);
  }
  // A time field of a duration event: a finite number (microseconds), >= 0 for durations.
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
          throw InputError(event_key("ts"), fmt::format("{} is before its B event's ts {} (expected E after B on "
                                                        "the same pid and tid)", end, begin.ts_us), {file_, 0});
        begin.dur_us = end - begin.ts_us;
        if (begin.correlation < 0) begin.correlation = ev_.event.correlation;
        ++stats_.begin_end_pairs;
        sink_(begin);
        it->second.pop_back();
        if (it->second.empty()) open_.erase(it);
        return;
      }
      default: return;
    }
  }

  JsonLexer& lex_;
  std::string file_;
  const EventSink& sink_;
  int64_t max_events_;
  bool found_events_ = false;
  std::string key_;
  std::string_view number_;  // the last number's text (valid until the lexer reads on)
  Field field_ = Field::Other;
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
  JsonLexer lex(*source, limits.max_bytes, kMaxTraceTokenBytes);
  // A stream that stopped early (corrupt gzip) shows as a JSON error at the cut: report why
  // it stopped instead.
  const auto check_stream = [&] {
    if (gz && !gz->error().empty()) throw InputError("", gz->error(), {file_name, 0});
  };
  TraceReader reader(lex, file_name, sink, limits.max_events);
  try {
    const ReadStats stats = reader.read();
    check_stream();
    return stats;
  } catch (const InputError& e) {
    check_stream();
    if (!e.where().file.empty()) throw;
    throw InputError(e.key(), e.reason(), {file_name, 0});
  }
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
