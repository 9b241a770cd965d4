// The streaming Chrome-trace reader (issue 8): Kineto's object form and the bare-array form,
// nested args skipped, non-complete events ignored, every malformed event named by index, and
// gzip read through the same path (one member, concatenated members, truncated data).
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <cstdlib>
#include <sstream>

#include "mhcsim/error.h"
#include "mhcsim/traces/chrome_trace.h"
#include "trace_helpers.h"

using namespace mhcsim;
using namespace mhcsim::traces;

namespace {

std::vector<TraceEvent> read_all(const std::string& text) {
  std::istringstream in(text);
  std::vector<TraceEvent> out;
  read_chrome_trace(in, "t.json", [&](const TraceEvent& e) { out.push_back(e); });
  return out;
}

std::string error_of(const std::string& text) {
  try {
    read_all(text);
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("no InputError for: " << text);
  return {};
}

}  // namespace

TEST_CASE("reader: Kineto object form, only complete events, nested args skipped") {
  const std::string text = R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "H800"}],
    "traceEvents": [
      {"ph": "X", "cat": "kernel", "name": "flash_fwd_kernel", "pid": 0, "tid": 7, "ts": 10.5, "dur": 4,
       "args": {"grid": [132, 1, 1], "stream": 7, "nested": {"ts": 999, "dur": -1}}},
      {"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "GPU 0"}},
      {"ph": "i", "name": "marker", "pid": 0, "tid": 7, "ts": 11},
      {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": "host", "tid": "thread 3", "ts": 1, "dur": 0}
    ],
    "traceName": "x"})";
  const auto events = read_all(text);
  REQUIRE(events.size() == 2);
  CHECK(events[0].name == "flash_fwd_kernel");
  CHECK(events[0].cat == "kernel");
  CHECK(events[0].pid == "0");
  CHECK(events[0].tid == "7");
  CHECK(events[0].ts_us == 10.5);
  CHECK(events[0].dur_us == 4);
  CHECK(events[1].pid == "host");
  CHECK(events[1].tid == "thread 3");
  CHECK(events[1].dur_us == 0);
}

TEST_CASE("reader: JSON Array Format and an empty events array") {
  CHECK(read_all(R"([{"ph":"X","name":"k","pid":1,"tid":2,"ts":0,"dur":1}])").size() == 1);
  CHECK(read_all(R"({"traceEvents": []})").empty());
}

TEST_CASE("reader: counts events and complete events") {
  std::istringstream in(R"({"traceEvents":[{"ph":"X","name":"a","ts":0,"dur":1},{"ph":"B","name":"b","ts":0}]})");
  const auto stats = read_chrome_trace(in, "t.json", [](const TraceEvent&) {});
  CHECK(stats.events == 2);
  CHECK(stats.complete_events == 1);
}

TEST_CASE("reader: malformed traces are InputErrors naming the file and key") {
  using Catch::Matchers::Contains;
  CHECK_THAT(error_of(R"({"displayTimeUnit": "ms"})"), Contains("t.json: traceEvents: missing"));
  CHECK_THAT(error_of(R"({"traceEvents": {"ph": "X"}})"),
             Contains("traceEvents: expected an array of events (got an object)"));
  CHECK_THAT(error_of(R"({"traceEvents": 3})"), Contains("traceEvents: expected an array"));
  CHECK_THAT(
      error_of(R"({"traceEvents": [{"ph":"X","name":"a","ts":0,"dur":1},{"ph":"X","name":"b","ts":0,"dur":"5"}]})"),
      Contains("traceEvents[1].dur: expected a number of microseconds (got a string)"));
  CHECK_THAT(error_of(R"({"traceEvents": [{"ph":"X","name":"b","ts":0}]})"),
             Contains("traceEvents[0].dur: expected a number"));
  CHECK_THAT(error_of(R"({"traceEvents": [{"ph":"X","name":"b","ts":0,"dur":-2}]})"),
             Contains("traceEvents[0].dur: -2 is out of range"));
  CHECK_THAT(error_of(R"({"traceEvents": [{"ph":"X","name":"b","ts":1e999,"dur":2}]})"),
             Contains("t.json: not valid JSON: number too big to be stored in double at byte offset 43"));
  CHECK_THAT(error_of(R"({"traceEvents": [{"ph":"X","name":"b","ts":0,"dur":1})"), Contains("t.json: not valid JSON"));
  CHECK_THAT(error_of(""), Contains("not valid JSON"));
}

TEST_CASE("reader: gzip is detected by its magic bytes and gives the same events") {
  const std::string text = test::small_trace_text();
  const auto plain = read_all(text);
  const auto gz = read_all(test::gzip(text));
  REQUIRE(gz.size() == plain.size());
  for (size_t i = 0; i < gz.size(); ++i) {
    CHECK(gz[i].name == plain[i].name);
    CHECK(gz[i].ts_us == plain[i].ts_us);
    CHECK(gz[i].dur_us == plain[i].dur_us);
  }
  // Concatenated members (cat a.gz b.gz) decode as one stream, as gzip(1) does.
  const std::string half = text.substr(0, text.size() / 2);
  CHECK(read_all(test::gzip(half) + test::gzip(text.substr(half.size()))).size() == plain.size());
}

TEST_CASE("reader: corrupt or truncated gzip is an InputError, not a JSON error") {
  using Catch::Matchers::Contains;
  const std::string gz = test::gzip(test::small_trace_text());
  CHECK_THAT(error_of(gz.substr(0, gz.size() / 2)), Contains("truncated gzip stream"));
  std::string corrupt = gz;
  corrupt[10] = static_cast<char>(0xff);  // first deflate block header: reserved block type 11
  CHECK_THAT(error_of(corrupt), Contains("corrupt gzip data"));
}

TEST_CASE("reader: a missing file is an InputError") {
  try {
    read_chrome_trace_file("/nonexistent/trace.json", [](const TraceEvent&) {});
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK_THAT(std::string(e.what()), Catch::Matchers::Contains("/nonexistent/trace.json: cannot open trace file"));
  }
}

TEST_CASE("reader: limits on bytes, events, token length and ids end the read with an InputError") {
  using Catch::Matchers::Contains;
  const std::string text = test::small_trace_text();
  const auto read_with = [](const std::string& data, const TraceLimits& limits) {
    std::istringstream in(data);
    read_chrome_trace(
        in, "t.json", [](const TraceEvent&) {}, limits);
  };
  CHECK_NOTHROW(read_with(text, {}));
  // Bytes count after decompression: the gzip of the trace is smaller than the limit.
  const TraceLimits small_bytes{.max_bytes = text.size() - 1};
  CHECK_THROWS_WITH(read_with(text, small_bytes),
                    Contains("t.json: trace is larger than the") && Contains("--max-trace-bytes"));
  CHECK_THROWS_WITH(read_with(test::gzip(text), small_bytes), Contains("trace is larger than the"));
  CHECK_THROWS_WITH(read_with(text, {.max_events = 3}),
                    Contains("t.json: traceEvents: more than 3 events (raise the limit with --max-trace-events)"));
  const std::string long_string =
      R"({"traceEvents": [{"name": ")" + std::string(kMaxTraceTokenBytes + 1, 'a') + "\"}]}";
  CHECK_THROWS_WITH(read_with(long_string, {}),
                    Contains("more than 16 MiB in one string, number or run of whitespace"));
  // Just under the limit: read whole.
  const std::string long_name = R"({"traceEvents": [{"name": ")" + std::string(kMaxTraceTokenBytes - 64, 'a') + "\"}]}";
  CHECK_NOTHROW(read_with(long_name, {}));
  const std::string spaces = R"({"traceEvents": [)" + std::string(kMaxTraceTokenBytes + 1, ' ') + "]}";
  CHECK_THROWS_WITH(read_with(spaces, {}), Contains("run of whitespace and brackets"));
  const std::string escaped_quotes = "{\"traceEvents\": [{\"name\": \"" + std::string(200, 'x') + "\\\"\"}]}";
  CHECK_NOTHROW(read_with(escaped_quotes, {}));
  const std::string long_pid =
      R"({"traceEvents": [{"ph": "X", "ts": 0, "dur": 1, "pid": ")" + std::string(300, '7') + "\"}]}";
  CHECK_THROWS_WITH(read_with(long_pid, {}), Contains("traceEvents[0].pid: 300 characters long"));
}

TEST_CASE("reader: a trace file must be a regular file within the byte limit") {
  using Catch::Matchers::Contains;
  const auto sink = [](const TraceEvent&) {};
  CHECK_THROWS_WITH(read_chrome_trace_file("/dev/zero", sink),
                    Contains("/dev/zero: cannot open trace file (a character device, not a regular file)"));
  const std::string path = MHCSIM_SOURCE_DIR "/fuzz/seeds/trace/kineto_small.json";
  CHECK_THROWS_WITH(read_chrome_trace_file(path, sink, {.max_bytes = 100}),
                    Contains("trace file is larger than the 100 bytes limit") && Contains("--max-trace-bytes"));
  CHECK(read_chrome_trace_file(path, sink).complete_events > 0);
}

TEST_CASE("reader: B/E pairs on one pid and tid become one event each, nested, innermost first") {
  const std::string text = R"({"traceEvents": [
    {"ph": "B", "cat": "user_annotation", "name": "outer", "pid": 1, "tid": 2, "ts": 10},
    {"ph": "B", "cat": "kernel", "name": "inner", "pid": 1, "tid": 2, "ts": 12, "args": {"correlation": 77}},
    {"ph": "B", "cat": "kernel", "name": "other thread", "pid": 1, "tid": 3, "ts": 13},
    {"ph": "E", "pid": 1, "tid": 2, "ts": 15},
    {"ph": "E", "pid": 1, "tid": 2, "ts": 20.5},
    {"ph": "E", "pid": 1, "tid": 9, "ts": 21},
    {"ph": "X", "cat": "kernel", "name": "x", "pid": 1, "tid": 2, "ts": 30, "dur": 1}
  ]})";
  std::istringstream in(text);
  std::vector<TraceEvent> out;
  const auto stats = read_chrome_trace(in, "t.json", [&](const TraceEvent& e) { out.push_back(e); });
  REQUIRE(out.size() == 3);
  CHECK(out[0].name == "inner");
  CHECK(out[0].cat == "kernel");
  CHECK(out[0].ts_us == 12);
  CHECK(out[0].dur_us == 3);
  CHECK(out[0].correlation == 77);
  CHECK(out[1].name == "outer");
  CHECK(out[1].dur_us == 10.5);
  CHECK(out[2].name == "x");
  CHECK(stats.begin_end_pairs == 2);
  CHECK(stats.complete_events == 1);
  CHECK(stats.unmatched_begin_end == 2);  // the E on tid 9 and the B on tid 3
  using Catch::Matchers::Contains;
  CHECK_THAT(
      error_of(R"({"traceEvents": [{"ph":"B","name":"b","pid":1,"tid":1,"ts":5},{"ph":"E","pid":1,"tid":1,"ts":4}]})"),
      Contains("traceEvents[1].ts: 4 is before its B event's ts 5"));
  CHECK_THAT(error_of(R"({"traceEvents": [{"ph":"B","name":"b","pid":1,"tid":1}]})"),
             Contains("traceEvents[0].ts: expected a number"));
}

TEST_CASE("reader: args.correlation, escapes and numeric ids") {
  const auto events = read_all(R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "a\"b\\c\u00e9\ud83d\ude00", "pid": 0, "tid": 7, "ts": 1, "dur": 2,
     "args": {"External id": 5, "correlation": 44479, "grid": [1, 2, {"x": null}], "ok": true}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 1.5, "tid": -3, "ts": 1e3, "dur": 0, "args": {"correlation": "x"}}]})");
  REQUIRE(events.size() == 2);
  CHECK(events[0].name == "a\"b\\c\xc3\xa9\xf0\x9f\x98\x80");
  CHECK(events[0].correlation == 44479);
  CHECK(events[1].correlation == -1);
  CHECK(events[1].pid == "1.5");
  CHECK(events[1].tid == "-3");
  CHECK(events[1].ts_us == 1000);
  using Catch::Matchers::Contains;
  // RapidJSON's messages and where it stopped, never an excerpt of the input.
  CHECK_THAT(error_of(R"({"traceEvents": [{"name": "\x"}]})"),
             Contains("t.json: not valid JSON: invalid escape character in string at byte offset 27"));
  CHECK_THAT(error_of(R"({"traceEvents": [{"ph": tru}]})"), Contains("not valid JSON: invalid value at byte offset"));
  CHECK_THAT(error_of(R"({"traceEvents": []} x)"),
             Contains("not valid JSON: the document root must not be followed by other values at byte offset 20"));
  CHECK_THAT(error_of(R"({"traceEvents": [{"ph":"X","name":"b","ts":)" + std::string(100, '1') + "e999}]}"),
             Contains("not valid JSON: number too big to be stored in double at byte offset 43") && !Contains("111"));
  // Past RapidJSON's own check of the exponent, converted by the reader: still an error.
  CHECK_THAT(error_of(R"({"traceEvents": [{"ph":"X","name":"b","ts":1.8e308,"dur":1}]})"),
             Contains("not valid JSON: number too big to be stored in double at byte offset 43"));
  // RapidJSON ends its input at a NUL byte: what follows one is still refused.
  CHECK_THAT(error_of(std::string(R"({"traceEvents": []})") + '\0' + "x"),
             Contains("not valid JSON: the document root must not be followed by other values at byte offset 19"));
  CHECK_THAT(error_of(std::string(R"({"traceEvents": [{"name": "a)") + '\0' + "\"}]}"),
             Contains("not valid JSON: missing a closing quotation mark in string"));
}

TEST_CASE("reader: numbers convert as strtod and int64 do, ids as before") {
  // Integers within int64 exactly; others correctly rounded (RapidJSON 1.1.0's full-precision
  // mode rounds some of these wrongly); ids print integers as written, other numbers as fmt does.
  const std::vector<std::string> numbers = {"0",
                                            "-0",
                                            "1740461679470006",
                                            "1740461679470006.123",
                                            "9223372036854775807",
                                            "9223372036854775808",
                                            "18446744073709551616",
                                            "178327074258992217533317863075796642728e-252",
                                            "0.1",
                                            "2.2250738585072011e-308",
                                            "4.9e-324",
                                            "1e-400",
                                            "1.7976931348623157e308"};
  for (const auto& n : numbers) {
    INFO(n);
    const auto events = read_all(R"({"traceEvents": [{"ph": "X", "name": "k", "ts": )" + n + R"(, "dur": 1, "pid": )" +
                                 n + R"(, "args": {"correlation": )" + n + "}}]}");
    REQUIRE(events.size() == 1);
    CHECK(events[0].ts_us == std::strtod(n.c_str(), nullptr));
    if (n.find_first_of(".e") == std::string::npos && n != "9223372036854775808" && n != "18446744073709551616") {
      CHECK(events[0].pid == (n == "-0" ? "0" : n));
      CHECK(events[0].correlation == std::stoll(n));
    } else {
      CHECK(events[0].pid == fmt::format("{}", std::strtod(n.c_str(), nullptr)));
      CHECK(events[0].correlation == -1);
    }
  }
  CHECK(read_all(R"({"traceEvents": [{"ph": "X", "name": "k", "ts": -0, "dur": 1}]})")[0].ts_us == 0);
  // A number's text is read back from the stream's buffer: also where it crosses or ends at the
  // edge of a 64 KiB block.
  const std::string ts = "178327074258992217533317863075796642728e-252";
  const std::string head = R"({"traceEvents": [)";
  const std::string event = R"({"ph": "X", "name": "k", "dur": 1, "ts": )" + ts + "}]}";
  for (size_t end = 65536 - 3; end <= 65536 + 3 + ts.size(); ++end) {
    INFO("number ends at byte " << end);
    const auto events = read_all(head + std::string(end - head.size() - event.size() + 3, ' ') + event);
    REQUIRE(events.size() == 1);
    CHECK(events[0].ts_us == std::strtod(ts.c_str(), nullptr));
  }
}

TEST_CASE("reader: strings read in bulk: escapes and control characters anywhere, across blocks") {
  using Catch::Matchers::Contains;
  // A name with an escape at each position 0..40 (the bulk copy stops at quotes, backslashes
  // and control characters, 16 bytes at a time), placed across the reader's 64 KiB blocks.
  for (const size_t at : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{31}, size_t{40}}) {
    const std::string plain = std::string(at, 'a') + "\\\"\\n\\u00e9" + std::string(50, 'b');
    const std::string decoded = std::string(at, 'a') + "\"\n\xc3\xa9" + std::string(50, 'b');
    for (const size_t pad : {size_t{65536 - 40}, size_t{65536 - 30 - at}, size_t{65536 - 20}}) {
      INFO("escape at " << at << ", padding " << pad);
      const auto events = read_all(R"({"traceEvents": [)" + std::string(pad, ' ') +
                                   R"({"ph": "X", "ts": 0, "dur": 1, "name": ")" + plain + "\"}]}");
      REQUIRE(events.size() == 1);
      CHECK(events[0].name == decoded);
    }
    CHECK_THAT(
        error_of(R"({"traceEvents": [{"name": ")" + std::string(at, 'a') + "\t" + std::string(30, 'b') + "\"}]}"),
        Contains("not valid JSON: invalid escape character in string at byte offset " + std::to_string(27 + at)));
  }
}

TEST_CASE("reader: kept strings must be valid UTF-8, ignored ones are not checked") {
  using Catch::Matchers::Contains;
  const auto trace = [](const std::string& name, const std::string& other) {
    return R"({"traceEvents": [{"ph": "X", "ts": 0, "dur": 1, "name": ")" + name + R"(", "args": {"x": ")" + other +
           R"("}}]})";
  };
  CHECK(read_all(trace("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "ok")).size() == 1);
  CHECK(read_all(trace("ok", "\xff\xfe")).size() == 1);
  for (const std::string bad : {"\xff", "\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "abcdefgh\x80"}) {
    INFO(bad);
    CHECK_THAT(error_of(trace(bad, "ok")), Contains("t.json: not valid JSON: invalid UTF-8 in string at byte offset"));
  }
  // A lone low surrogate escape decodes to a surrogate code point: not UTF-8 either.
  CHECK_THAT(error_of(trace("\\udc00", "ok")), Contains("invalid UTF-8 in string"));
}

TEST_CASE("reader: nesting is refused at 256 levels, before the parser recurses deeper") {
  using Catch::Matchers::Contains;
  CHECK_THAT(error_of(std::string(1'000'000, '[')), Contains("t.json: nesting deeper than 256 levels"));
  CHECK_THAT(error_of(R"({"traceEvents": [{"args": {"stack": )" + std::string(1'000'000, '[')),
             Contains("nesting deeper than 256 levels"));
}
