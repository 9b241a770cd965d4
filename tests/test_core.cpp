#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include <sys/stat.h>

#include "mhcsim/atomic_write.h"
#include "mhcsim/dtype.h"
#include "mhcsim/error.h"
#include "mhcsim/input_file.h"
#include "mhcsim/intervals.h"
#include "mhcsim/reports/table.h"
#include "mhcsim/specs.h"
#include "mhcsim/threads.h"
#include "mhcsim/toml_nesting.h"

using namespace mhcsim;

TEST_CASE("InputError formats file:line: key: reason") {
  InputError e("parallel.pp", "must be >= 1 (got 0)", {"x.toml", 12});
  CHECK(std::string(e.what()) == "x.toml:12: parallel.pp: must be >= 1 (got 0)");
  InputError no_file("model.layers", "missing");
  CHECK(std::string(no_file.what()) == "model.layers: missing");
}

TEST_CASE("enum spellings round-trip") {
  for (auto s : {Schedule::OneF1B, Schedule::Interleaved1F1B, Schedule::ZB1P, Schedule::DualPipe, Schedule::DualPipeV})
    CHECK(parse_schedule(to_string(s)) == s);
  for (auto t : {DType::FP32, DType::BF16, DType::FP16, DType::FP8, DType::INT4}) CHECK(parse_dtype(to_string(t)) == t);
  CHECK_FALSE(parse_schedule("dual-pipe").has_value());
  CHECK(bytes_per_element(DType::INT4) == 0.5);
}

TEST_CASE("atomic write leaves either the old or the new file, never a temp") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / "mhcsim_test_atomic";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path file = dir / "out.txt";
  write_file_atomically(file, "first");
  CHECK_THROWS(write_file_atomically(file, [](std::ostream& o) {
    o << "partial";
    throw std::runtime_error("disk full");
  }));
  std::ifstream in(file);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  CHECK(text == "first");
  CHECK(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}) == 1);
  // A missing folder is made; one that cannot be (a file in the way) is a clear error.
  write_file_atomically(dir / "made" / "x.txt", "y");
  CHECK(fs::is_regular_file(dir / "made" / "x.txt"));
  CHECK_THROWS_WITH(write_file_atomically(file / "x.txt", "y"), Catch::Contains("cannot create the output directory"));
  fs::remove_all(dir);
}

TEST_CASE("table text, csv and json come from the same fields") {
  reports::Table t("bubble", {{"schedule", "schedule"}, {"bubble_s", "bubble (ms)", 2, 1e3}});
  t.add_row({std::string("1f1b"), 0.0125});
  std::ostringstream text, csv;
  t.print_text(text);
  t.print_csv(csv);
  CHECK(text.str().find("bubble (ms)") != std::string::npos);
  CHECK(text.str().find("12.50") != std::string::npos);
  CHECK(csv.str() == "schedule,bubble_s\n1f1b,0.0125\n");
  CHECK(t.to_json()[0]["bubble_s"].get<double>() == 0.0125);
  CHECK_THROWS(t.add_row({std::string("x")}));
}

TEST_CASE("merge_spans unions overlapping and touching spans, drops empty ones; intersection of two lists") {
  std::vector<Span> a{{3.0, 4.0}, {0.0, 1.0}, {0.5, 2.0}, {2.0, 2.5}, {5.0, 5.0}};
  CHECK(merge_spans(a) == 3.5);  // [0, 2.5) and [3, 4)
  CHECK(a == std::vector<Span>{{0.0, 2.5}, {3.0, 4.0}});
  std::vector<Span> b{{2.0, 3.5}};
  CHECK(merge_spans(b) == 1.5);
  CHECK(intersection_seconds(a, b) == 1.0);  // [2, 2.5) and [3, 3.5)
  CHECK(intersection_seconds(a, {}) == 0.0);
  std::vector<Span> sorted{{0.0, 1.0}, {0.5, 2.0}, {2.0, 2.0}, {3.0, 4.0}};
  CHECK(merge_sorted_spans(sorted) == 3.0);
  CHECK(sorted == std::vector<Span>{{0.0, 2.0}, {3.0, 4.0}});
}

TEST_CASE("input files: regular files only, size checked before reading, never blocking on a FIFO") {
  namespace fs = std::filesystem;
  using Catch::Contains;
  const fs::path dir = fs::temp_directory_path() / "mhcsim_test_input_file";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const InputKind kind{.what = "test file", .max_bytes = 8, .raise_flag = "--max-test-bytes", .key = "k"};
  std::ofstream(dir / "ok.txt") << "12345678";
  CHECK(read_input_file(dir / "ok.txt", kind) == "12345678");
  InputFile file(dir / "ok.txt", kind);
  CHECK(file.size_bytes() == 8);
  std::ofstream(dir / "big.txt") << "123456789";
  CHECK_THROWS_WITH(
      read_input_file(dir / "big.txt", kind),
      Contains("big.txt: k: test file is larger than the 8 bytes limit (9 bytes) (raise it with --max-test-bytes)"));
  CHECK_THROWS_WITH(read_input_file(dir / "none.txt", kind),
                    Contains("none.txt: k: cannot open test file (No such file or directory)"));
  CHECK_THROWS_WITH(read_input_file(dir, kind), Contains("cannot open test file (a directory, not a regular file)"));
  CHECK_THROWS_WITH(read_input_file("/dev/zero", kind),
                    Contains("/dev/zero: k: cannot open test file (a character device, not a regular file)"));
  REQUIRE(::mkfifo((dir / "fifo").c_str(), 0600) == 0);  // no writer: a blocking open would hang here
  CHECK_THROWS_WITH(read_input_file(dir / "fifo", kind),
                    Contains("cannot open test file (a FIFO, not a regular file)"));
  CHECK(input_file_problem(dir / "ok.txt").empty());
  CHECK(input_file_problem(dir / "fifo") == "a FIFO, not a regular file");
  CHECK(format_byte_count(uint64_t{1} << 20) == "1 MiB");
  CHECK(format_byte_count(uint64_t{3} << 30) == "3 GiB");
  CHECK(format_byte_count(1000) == "1000 bytes");
  fs::remove_all(dir);
}

TEST_CASE("TOML nesting: dotted keys, headers, arrays and inline tables count; strings and comments do not") {
  using Catch::Contains;
  const auto ok = [](const std::string& text) { CHECK_NOTHROW(check_toml_nesting(text, "t.toml", 4)); };
  const auto deep = [](const std::string& text, const std::string& where) {
    CHECK_THROWS_WITH(check_toml_nesting(text, "t.toml", 4),
                      Contains(where) && Contains("nesting deeper than 4 levels"));
  };
  ok("a.b.c.d = 1\n");
  deep("a.b.c.d.e = 1\n", "t.toml:1: a.b.c.d.e: ");
  ok("[a.b]\nc.d = 1\n[e]\nf.g.h = 1\n");  // a header's depth ends at the next header
  deep("[a.b]\nc.d.e = 1\n", "t.toml:2: c.d.e: ");
  deep("[[a.b.c.d.e]]\n", "t.toml:1: a.b.c.d.e: ");
  ok("x = [[[1.5, 2.5, 3.5, 4.5, 5.5]]]\n");  // dots in values are numbers
  deep("x = [[[[1]]]]\n", "t.toml:1: x: ");
  deep("x = {a = {b = {c = {d = 1}}}}\n", "t.toml:1: x: ");
  ok("x = {a = 1, b = {c = 1}, d.e = 2}\n");
  deep("x = [\n  [\n    [[1]]\n  ]\n]\n", "t.toml:3: x: ");  // multi-line arrays keep their depth
  ok("a = \"x.y.z.w.v[[[[{{{{\" # a.b.c.d.e [[[[\n");
  ok("a = 'x.y.z.w.v[[[['\nb = \"\"\"\n[[[[.....\n\"\"\"\nc = '''\n....'''\n");
  deep("a = \"\"\"\n\n\"\"\"\nb.c.d.e.f = 1\n", "t.toml:4: b.c.d.e.f: ");  // lines counted in strings
  ok("\"a.b.c.d.e\".f = 1\n");                                             // a quoted key part is one part
  ok("a = \"\\\".b.c.d.e\"\n");                                            // an escaped quote does not end the string
  deep("a = 1\n" + std::string(1000, '[') + "\n", "t.toml:2: ");           // garbage still stops at the limit
  ok(std::string(100, ']') + std::string(100, '}') + "\n");                // unbalanced closers are the parser's error
  deep("a" + std::string(40000, '.') + "b = 1\n", "t.toml:1: ");
}

TEST_CASE("run_threads runs every body once, rethrows the first error after all joined, and tells the others") {
  std::vector<std::atomic<int>> ran(8);
  run_threads(8, [&](int t) { ran[static_cast<size_t>(t)].fetch_add(1); });
  for (const auto& r : ran) CHECK(r.load() == 1);

  // With `meanwhile`, the calling thread runs it while all bodies have threads of their own,
  // and sees the running count fall to zero.
  std::atomic<int> bodies{0};
  int seen_last = -1;
  ThreadsOptions watch;
  watch.meanwhile = [&](const std::atomic<int>& running) {
    while (running.load() > 0) std::this_thread::yield();
    seen_last = running.load();
  };
  run_threads(
      4, [&](int) { bodies.fetch_add(1); }, watch);
  CHECK(bodies.load() == 4);
  CHECK(seen_last == 0);

  // A body's error leaves once every thread returned; stop() is called once, and the bodies
  // that wait for it return.
  std::atomic<bool> stopped{false};
  std::atomic<int> stop_calls{0}, returned{0};
  ThreadsOptions halt;
  halt.stop = [&] {
    stop_calls.fetch_add(1);
    stopped = true;
  };
  const auto body = [&](int t) {
    if (t == 2) throw InputError("k", "body 2 failed");
    while (!stopped.load()) std::this_thread::yield();
    returned.fetch_add(1);
  };
  CHECK_THROWS_WITH(run_threads(4, body, halt), Catch::Contains("body 2 failed"));
  CHECK(stop_calls.load() == 1);
  CHECK(returned.load() == 3);

  // meanwhile's error is rethrown too.
  ThreadsOptions failing;
  failing.meanwhile = [](const std::atomic<int>&) { throw std::runtime_error("sink failed"); };
  CHECK_THROWS_WITH(run_threads(
                        2, [](int) {}, failing),
                    "sink failed");
  CHECK(default_threads(3) == 3);
  CHECK(default_threads(0) >= 1);
}
