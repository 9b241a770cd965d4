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

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include "bounded_json_stream.h"
#include "gzip_streambuf.h"
#include "mhcsim/error.h"
#include "mhcsim/input_file.h"
#include "utf8.h"

namespace mhcsim::traces {
namespace {

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

// SAX handler for RapidJSON's Reader. It builds no JSON values: keys are compared in place,
// the strings kept (name, cat, ph, pid, tid) are copied into buffers that keep their capacity
// from one event to the next, only the numbers kept are converted, and
// everything else is dropped as it arrives. depth_ counts the open objects and arrays; the
// events array's elements sit at events_depth_ (1 for a bare array, 2 inside the root object),
// an event's members one deeper, and args' members one deeper still (only args.correlation is
// kept). Deeper values (stack frames, grids) only move depth_. Errors of the trace's content
// are thrown as InputError; a malformed string or number returns false and leaves its message
// in json_error() (RapidJSON then reports where it stopped).
class TraceSax : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, TraceSax> {
 public:
  TraceSax(const BoundedJsonStream& stream, std::string file, const EventSink& sink, int64_t max_events,
           uint64_t max_token_bytes)
      : stream_(stream),
        file_(std::move(file)),
        sink_(sink),
        max_events_(max_events),
        max_token_bytes_(max_token_bytes) {}

  // Why the handler stopped the parse (kParseErrorTermination), for the caller's message.
  const char* json_error() const { return json_error_; }

  bool Null() { return scalar("null"); }
  bool Bool(bool) { return scalar("a boolean"); }

  // Integers within 64 bits come as they are; any other number (a fraction, an exponent, past
  // 64 bits) as RapidJSON's double, which is not always correctly rounded: where it is kept,
  // its text, still in the stream's buffer, is converted instead.
  bool Int(int v) { return integer(v); }
  bool Uint(unsigned v) { return integer(v); }
  bool Int64(int64_t v) { return integer(v); }
  bool Uint64(uint64_t v) {
    // As nlohmann did: past int64, a double.
    if (v <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return integer(static_cast<int64_t>(v));
    return real(static_cast<double>(v));
  }
  bool Double(double v) {
    if (at_member() && where_ == Where::Event &&
        (field_ == Field::Ts || field_ == Field::Dur || field_ == Field::Pid || field_ == Field::Tid)) {
      // A number longer than the stream keeps (1 KiB) is taken as RapidJSON rounded it.
      if (const std::string_view text = stream_.number_before(); !text.empty() && !as_double(text, v)) return false;
    }
    return real(v);
  }

  bool String(const char* text, rapidjson::SizeType length, bool) {
    const std::string_view v = token(text, length);
    if (!at_member()) return outside_event("a string");
    if (where_ == Where::Args) return true;
    switch (field_) {
      case Field::Name:
        return keep(v, ev_.event.name);
      case Field::Cat:
        return keep(v, ev_.event.cat);
      case Field::Ph:
        return keep(v, ev_.ph);
      case Field::Pid:
        check_id(v, "pid");
        return keep(v, ev_.event.pid);
      case Field::Tid:
        check_id(v, "tid");
        return keep(v, ev_.event.tid);
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

  bool Key(const char* text, rapidjson::SizeType length, bool) {
    const std::string_view k = token(text, length);
    if (depth_ == events_depth_ + 1 && in_events_) {
      field_ = where_ == Where::Event ? event_field(k) : args_field(k);
    } else if (depth_ == 1 && !in_events_) {
      events_key_ = k == "traceEvents";
    }
    return true;
  }

  bool StartObject() {
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
  bool EndObject(rapidjson::SizeType) {
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
  bool StartArray() {
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
  bool EndArray(rapidjson::SizeType) {
    --depth_;
    if (in_events_ && depth_ == events_depth_ - 1) in_events_ = false;
    return true;
  }

  // A trace is a few levels deep (root, traceEvents, event, args, a stack or grid in the args);
  // a run of brackets is refused here, as it opens (the handler is called before RapidJSON's
  // recursive descent parses the contents), so the parser recurses at most 256 levels deep.
  static constexpr int kMaxNesting = 256;
  void nest() {
    if (depth_ >= kMaxNesting)
      throw InputError("", fmt::format("nesting deeper than {} levels", kMaxNesting), {file_, 0});
    ++depth_;
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

  static bool is(std::string_view k, const char* lit, size_t n) { return std::memcmp(k.data(), lit, n) == 0; }
  static Field event_field(std::string_view k) {
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
  static Field args_field(std::string_view k) {
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

  // A string or key as RapidJSON hands it over, within the token limit.
  std::string_view token(const char* text, rapidjson::SizeType length) const {
    if (length > max_token_bytes_) throw TokenTooLong{};
    return {text, length};
  }
  // Ids are kept as text: an integer as written, another number as fmt prints it.
  std::string& id_field() { return field_ == Field::Pid ? ev_.event.pid : ev_.event.tid; }
  // A number directly in an event or its args.
  bool integer(int64_t v) {
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
      case Field::Tid: {
        char buf[24];
        const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
        id_field().assign(buf, end);
        break;
      }
      default:
        break;
    }
    return true;
  }
  bool real(double v) {
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
      case Field::Tid: {
        std::string& id = id_field();
        id.clear();
        fmt::format_to(std::back_inserter(id), "{}", v);
        break;
      }
      default:
        break;
    }
    return true;
  }
  // The text of a number as nlohmann converted it (strtod, correctly rounded; std::from_chars
  // is too): infinity is an error, underflow to zero or a subnormal is not.
  bool as_double(std::string_view text, double& out) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
    if (ec == std::errc{} && end == text.data() + text.size()) return true;
    scratch_.assign(text);  // out of range: strtod says which way
    out = std::strtod(scratch_.c_str(), nullptr);
    if (std::isfinite(out)) return true;
    json_error_ = "number too big to be stored in double";
    return false;
  }
  // A kept string: names reach JSON output, so they must be valid UTF-8 (as nlohmann checked).
  bool keep(std::string_view v, std::string& out) {
    if (!valid_utf8(v)) {
      json_error_ = "invalid UTF-8 in string";
      return false;
    }
    out.assign(v);
    return true;
  }

  // Streams are kept by (pid, tid) for the whole trace: ids are short in every real trace.
  void check_id(std::string_view v, const char* field) const {
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

  const BoundedJsonStream& stream_;  // where a number's text is read back
  std::string file_;
  std::string scratch_;
  const EventSink& sink_;
  int64_t max_events_;
  uint64_t max_token_bytes_;
  const char* json_error_ = "stopped";
  int depth_ = 0;
  int events_depth_ = -1;    // depth of the events array's elements (+1 while inside args)
  bool events_key_ = false;  // the last root key was "traceEvents"
  bool in_events_ = false;
  bool found_events_ = false;
  Where where_ = Where::None;
  Field field_ = Field::Other;  // the member being read (of the event, or of its args)
  PendingEvent ev_;
  // B events not yet ended, per (pid, tid): nested ranges close innermost first.
  std::map<std::pair<std::string, std::string>, std::vector<TraceEvent>> open_;
  ReadStats stats_;
};

// RapidJSON's parse flags: none. Numbers: integers within 64 bits arrive exact; for the few
// other numbers the reader keeps, TraceSax converts their text with std::from_chars, correctly
// rounded as nlohmann (strtod) did. Neither kParseFullPrecisionFlag (RapidJSON 1.1.0 rounds
// some long inputs wrongly with it: 17 of 2M random numbers of 17-40 digits differed from
// strtod, and some that overflow became NaN) nor kParseNumbersAsStringsFlag (exact, but every
// number's text is copied twice onto RapidJSON's stack: ~10% slower) is needed. Recursive, not
// kParseIterativeFlag: TraceSax refuses a 257th level as it opens, before RapidJSON recurses
// into it, so the recursion is at most 256 levels (tested with 1M '[', also under ASan), and
// the recursive parser was ~10% faster in the bench (IterativeParse keeps its state on a heap
// stack and dispatches through a state table per token).
constexpr unsigned kParseFlags = rapidjson::kParseDefaultFlags;

// RapidJSON's message, "Invalid value." as "invalid value".
std::string json_message(rapidjson::ParseErrorCode code) {
  std::string m = rapidjson::GetParseError_En(code);
  if (!m.empty() && m.back() == '.') m.pop_back();
  if (!m.empty() && m[0] >= 'A' && m[0] <= 'Z') m[0] = static_cast<char>(m[0] - 'A' + 'a');
  return m;
}

}  // namespace

ReadStats read_chrome_trace(std::istream& in, const std::string& file_name, const EventSink& sink,
                            const TraceLimits& limits) {
  std::streambuf* source = in.rdbuf();
  if (source == nullptr) throw InputError("", "cannot read trace", {file_name, 0});
  std::optional<GzipStreambuf> gz;
  if (starts_with_gzip_magic(*source)) source = &gz.emplace(*source);
  BoundedJsonSource bytes(*source, limits.max_bytes, kMaxTraceTokenBytes);
  BoundedJsonStream stream(bytes);
  // A stream that stopped early (corrupt gzip, a limit) shows as a JSON error at the cut:
  // report why it stopped instead.
  const auto check_stream = [&] {
    if (gz && !gz->error().empty()) throw InputError("", gz->error(), {file_name, 0});
    if (!bytes.error().empty()) throw InputError("", bytes.error(), {file_name, 0});
  };
  TraceSax sax(stream, file_name, sink, limits.max_events, kMaxTraceTokenBytes);
  // The reader's stack holds the string or number being read: it grows by half its size at a
  // time, so twice the token limit holds any token within it.
  TokenStackAllocator stack_allocator(2 * kMaxTraceTokenBytes + 1024);
  rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, TokenStackAllocator> reader(&stack_allocator,
                                                                                             size_t{1} << 16);
  rapidjson::ParseResult result;
  try {
    result = reader.Parse<kParseFlags>(stream, sax);
  } catch (const InputError&) {
    check_stream();
    throw;
  } catch (const TokenTooLong&) {
    check_stream();
    throw InputError("", bytes.run_error(), {file_name, 0});
  }
  check_stream();
  const auto invalid = [&](const std::string& what, size_t offset) {
    return InputError("", fmt::format("not valid JSON: {} at byte offset {}", what, offset), {file_name, 0});
  };
  if (result.IsError())
    throw invalid(result.Code() == rapidjson::kParseErrorTermination ? sax.json_error() : json_message(result.Code()),
                  result.Offset());
  // RapidJSON reads a NUL byte as the end of the input: anything from one on is not JSON.
  if (!stream.at_end()) throw invalid(json_message(rapidjson::kParseErrorDocumentRootNotSingular), stream.Tell());
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
