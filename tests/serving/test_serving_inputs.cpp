// What the serve verb reads: request files (CSV, JSONL; errors name file:line and the column),
// durations with units, and the generated requests; and the percentile sketch's accuracy.
#include <catch2/catch.hpp>

#include <cmath>

#include "mhcsim/error.h"
#include "mhcsim/serving/quantile_sketch.h"
#include "mhcsim/serving/request.h"
#include "mhcsim/serving/units.h"
#include "temp_file.h"

using namespace mhcsim;
using namespace mhcsim::serving;
using Catch::Matchers::WithinRel;

TEST_CASE("request files: CSV with its header in any order, JSONL, comments and blank lines") {
  SECTION("CSV") {
    const test::TempFile f("r.csv",
                           "# a trace\noutput_tokens, arrival_s ,input_tokens,user\n\n12,0.5,100,a\n7,0.5,30,b\n");
    RequestFile src(f.path());
    const auto a = src.next(), b = src.next();
    REQUIRE(a);
    REQUIRE(b);
    CHECK(a->arrival_s == 0.5);
    CHECK(a->input_tokens == 100);
    CHECK(a->output_tokens == 12);
    CHECK(a->line == 4);
    CHECK(b->id == 1);
    CHECK(b->line == 5);
    CHECK_FALSE(src.next());
  }
  SECTION("CSV with a UTF-8 byte-order mark, as spreadsheets save it") {
    const auto first =
        GENERATE(std::string("arrival_s,input_tokens,output_tokens\n"), std::string("# made in Excel\n"));
    const test::TempFile f(
        "r.csv",
        "\xEF\xBB\xBF" + first + (first.front() == '#' ? "arrival_s,input_tokens,output_tokens\n" : "") + "0,100,12\n");
    RequestFile src(f.path());
    CHECK(src.next()->input_tokens == 100);
  }
  SECTION("JSONL, by extension or by its first character") {
    const auto name = GENERATE(std::string("r.jsonl"), std::string("r.txt"));
    const test::TempFile f(name,
                           "{\"arrival_s\": 0, \"input_tokens\": 10, \"output_tokens\": 2}\n"
                           "# comment\n{\"arrival_s\": 1.25, \"input_tokens\": 20, \"output_tokens\": 3, \"x\": 1}\n");
    RequestFile src(f.path());
    CHECK(src.next()->input_tokens == 10);
    const auto b = src.next();
    CHECK(b->arrival_s == 1.25);
    CHECK(b->line == 3);
    CHECK_FALSE(src.next());
  }
}

TEST_CASE("request file errors name file:line and the column") {
  const auto error = [](const std::string& name, const std::string& text) {
    const test::TempFile f(name, text);
    try {
      RequestFile src(f.path());
      while (src.next()) {}
    } catch (const InputError& e) {
      const std::string what = e.what();
      REQUIRE(what.rfind(f.str(), 0) == 0);  // starts with the file
      return what.substr(f.str().size());
    }
    FAIL("no error");
    return std::string();
  };
  const std::string header = "arrival_s,input_tokens,output_tokens\n";
  CHECK_THAT(error("a.csv", header + "0,10,1\n1,ten,1\n"),
             Catch::StartsWith(":3: input_tokens: 'ten' is not an integer"));
  CHECK_THAT(error("a.csv", header + "0,10,1\n1,10.5,1\n"), Catch::StartsWith(":3: input_tokens:"));
  CHECK_THAT(error("a.csv", header + "0,10,0\n"),
             Catch::StartsWith(":2: output_tokens: 0 (expected tokens in [1, 1073741824])"));
  // Past 2^30 tokens: a prompt plus its output would otherwise overflow the simulator's counters.
  CHECK_THAT(error("a.csv", header + "0,1073741825,1\n"), Catch::StartsWith(":2: input_tokens: 1073741825 (expected"));
  CHECK_THAT(error("a.csv", header + "0,9223372036854775807,9223372036854775807\n"),
             Catch::StartsWith(":2: input_tokens: 9223372036854775807 (expected tokens in [1, 1073741824])"));
  CHECK_THAT(error("a.jsonl", "{\"arrival_s\": 0, \"input_tokens\": 1, \"output_tokens\": 2e9}\n"),
             Catch::StartsWith(":1: output_tokens: 2000000000 (expected tokens in [1, 1073741824])"));
  // One line is all the reader holds: a longer one (a file without newlines) is refused.
  CHECK_THAT(error("a.csv", header + "0,1,1," + std::string(size_t{5} << 20, 'x') + "\n"),
             Catch::StartsWith(":2: line: longer than 4 MiB"));
  CHECK_THAT(error("a.csv", header + "2,10,1\n1,10,1\n"), Catch::StartsWith(":3: arrival_s: 1 is before"));
  CHECK_THAT(error("a.csv", header + "-1,10,1\n"), Catch::StartsWith(":2: arrival_s:"));
  CHECK_THAT(error("a.csv", header + "1,10\n"), Catch::StartsWith(":2: line: 2 columns"));
  CHECK_THAT(error("a.csv", header + "0,100,10,5\n"), Catch::StartsWith(":2: line: 4 columns, the header has 3"));
  // RFC 4180: a quoted comma is the field's own, and quoted names and numbers read as bare ones.
  {
    const test::TempFile f("q.csv", "\"arrival_s\",input_tokens,output_tokens,note\n0,\"10\",10,\"a, b\"\n");
    RequestFile src(f.path());
    const auto r = src.next();
    REQUIRE(r);
    CHECK(r->input_tokens == 10);
    CHECK_FALSE(src.next());
  }
  CHECK_THAT(error("a.csv", header), Catch::Contains("no request in the file (expected requests after the header)"));
  CHECK_THAT(error("a.csv", "arrival_s,input_tokens\n1,2\n"), Catch::StartsWith(":1: header:"));
  // nlohmann keeps the last of a key given twice; the reader refuses it.
  CHECK_THAT(error("a.jsonl", "{\"arrival_s\": 0, \"input_tokens\": 1, \"output_tokens\": 1, \"arrival_s\": 5}\n"),
             Catch::StartsWith(":1: line: duplicate key \"arrival_s\""));
  // The key as JSON writes it: a newline in it keeps the message on one line.
  CHECK_THAT(error("a.jsonl", "{\"x\\ny\": 1, \"x\\ny\": 2}\n"), Catch::Contains("duplicate key \"x\\ny\""));
  CHECK_THAT(error("a.jsonl", "{\"arrival_s\": 0, \"input_tokens\": 1, \"output_tokens\": 1}\n{\"arrival_s\": 1, "),
             Catch::StartsWith(":2: line: malformed JSON: parse error at line 1, column 17"));
  // A number past float64 is nlohmann's out_of_range, which ended the process (fuzz_requests).
  CHECK_THAT(error("a.jsonl", "{\"arrival_s\": 1e400, \"input_tokens\": 1, \"output_tokens\": 1}\n"),
             Catch::StartsWith(":1: line: malformed JSON: a number overflows float64"));
  CHECK_THAT(error("a.jsonl", "{\"arrival_s\": 0, \"input_tokens\": 1, \"output_tokens\": 1}\n[1]\n"),
             Catch::StartsWith(":2: line: array is not a JSON object"));
  CHECK_THAT(error("a.jsonl", "{\"arrival_s\": 0, \"input_tokens\": 1}\n"),
             Catch::StartsWith(":1: output_tokens: missing"));
  CHECK_THAT(error("a.jsonl", "{\"arrival_s\": \"0\", \"input_tokens\": 1, \"output_tokens\": 1}\n"),
             Catch::StartsWith(":1: arrival_s: \"0\" is not a number"));
  CHECK_THAT(error("a.csv", "# only a comment\n"), Catch::StartsWith(": --requests-file: no request"));
  CHECK_THROWS_WITH(RequestFile("/nonexistent/requests.csv"), Catch::Contains("cannot open request file"));
  // Regular files only, as every input file: /dev/zero would be read forever, with no newline.
  CHECK_THROWS_WITH(RequestFile("/dev/zero"),
                    Catch::Equals("/dev/zero: --requests-file: cannot open request file (a character device, not a "
                                  "regular file)"));
}

TEST_CASE("durations need a unit and must be > 0") {
  CHECK(parse_duration("2s", "--slo-ttft") == 2.0);
  CHECK_THAT(parse_duration("50ms", "--slo-tpot"), WithinRel(0.05, 1e-15));
  CHECK_THAT(parse_duration("500us", "--slo-tpot"), WithinRel(5e-4, 1e-15));
  CHECK(parse_duration("1.5min", "--slo-ttft") == 90.0);
  CHECK(parse_duration("1h", "--slo-ttft") == 3600.0);
  CHECK_THROWS_WITH(parse_duration("2", "--slo-ttft"), Catch::StartsWith("--slo-ttft: '2' has no unit"));
  CHECK_THROWS_WITH(parse_duration("-5ms", "--slo-tpot"), Catch::StartsWith("--slo-tpot: '-5ms' is not > 0"));
  CHECK_THROWS_WITH(parse_duration("0s", "--slo-tpot"), Catch::Contains("is not > 0"));
  CHECK_THROWS_WITH(parse_duration("fast", "--slo-tpot"), Catch::Contains("is not a duration"));
  CHECK_THROWS_WITH(parse_duration("2 s", "--slo-tpot"), Catch::Contains("unknown unit ' s'"));
  CHECK_THROWS_WITH(parse_duration("2parsecs", "--slo-tpot"), Catch::Contains("unknown unit"));
  CHECK(parse_positive("12.5", "--rate") == 12.5);
  CHECK_THROWS_WITH(parse_positive("0", "--rate"), Catch::StartsWith("--rate: '0' is not > 0"));
  CHECK_THROWS_WITH(parse_positive("-3", "--rate"), Catch::StartsWith("--rate:"));
  CHECK_THROWS_WITH(parse_positive("3/s", "--rate"), Catch::StartsWith("--rate: '3/s' is not a number"));
  CHECK_THROWS_WITH(parse_positive("inf", "--rate"), Catch::StartsWith("--rate: 'inf' is not a finite number"));
  CHECK_THROWS_WITH(parse_duration("1e308h", "--slo-ttft"), Catch::StartsWith("--slo-ttft: '1e308h' is not a finite"));
  CHECK(duration_text(0.05) == "50 ms");
  CHECK(duration_text(900) == "15 min");
  CHECK(duration_text(2) == "2 s");
  CHECK(duration_text(5e-4) == "500 us");
  CHECK(parse_fraction("0.563", "--prefix-hit") == 0.563);
  CHECK_THROWS_WITH(parse_fraction("1", "--prefix-hit"), Catch::StartsWith("--prefix-hit:"));
  CHECK(parse_count("128", "--replicas") == 128);
  CHECK_THROWS_WITH(parse_count("0", "--replicas"), Catch::StartsWith("--replicas: 0 is too small"));
  CHECK_THROWS_WITH(parse_count("1.5", "--replicas"), Catch::StartsWith("--replicas: '1.5' is not an integer"));
  CHECK_THROWS_WITH(parse_count("99999999999999999999", "--requests", 1, 1000),
                    Catch::StartsWith("--requests: 99999999999999999999 is too large (expected an integer <= 1000)"));
}

TEST_CASE("Poisson requests: the rate, the mean lengths, and the clamp") {
  const LengthDistribution in{LengthDistribution::Kind::Exponential, 500};
  const LengthDistribution out{LengthDistribution::Kind::Fixed, 64};
  PoissonSource src(4.0, 100000, in, out, 42);
  double last = 0, tokens = 0;
  int64_t n = 0, longest = 0;
  while (auto r = src.next()) {
    CHECK(r->arrival_s >= last);
    last = r->arrival_s;
    tokens += static_cast<double>(r->input_tokens);
    longest = std::max(longest, r->input_tokens);
    CHECK(r->output_tokens == 64);
    ++n;
  }
  CHECK(n == 100000);
  CHECK_THAT(static_cast<double>(n) / last, WithinRel(4.0, 0.02));
  CHECK_THAT(tokens / static_cast<double>(n), WithinRel(500.0, 0.02));
  CHECK(longest <= 4000);
  CHECK(src.largest_request()->input_tokens == 4000);
  CHECK(src.largest_request()->output_tokens == 64);
}

TEST_CASE("percentile sketch: within its relative accuracy, in fixed memory") {
  QuantileSketch s;
  for (int i = 1; i <= 100000; ++i) s.add(i * 1e-4);  // 0.1 ms .. 10 s
  CHECK_THAT(s.quantile(0.5), WithinRel(5.0, QuantileSketch::kRelativeAccuracy));
  CHECK_THAT(s.quantile(0.99), WithinRel(9.9, QuantileSketch::kRelativeAccuracy));
  CHECK_THAT(s.quantile(0.01), WithinRel(0.1, QuantileSketch::kRelativeAccuracy));
  CHECK(s.quantile(1.0) == s.max());
  CHECK_THAT(s.mean(), WithinRel(5.00005, 1e-12));
  CHECK(s.min() == 1e-4);
  CHECK(QuantileSketch{}.quantile(0.5) == 0);
  QuantileSketch zero;
  zero.add(0);
  CHECK(zero.quantile(0.99) == 0);
  // Far past capacity latencies run to 1e7 s and more; they are not clamped there.
  QuantileSketch late;
  for (int i = 1; i <= 100; ++i) late.add(i * 1e7);
  CHECK_THAT(late.quantile(0.5), WithinRel(5e8, QuantileSketch::kRelativeAccuracy));
  CHECK_THAT(late.quantile(0.99), WithinRel(9.9e8, QuantileSketch::kRelativeAccuracy));
}
