#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "mhcsim/atomic_write.h"
#include "mhcsim/dtype.h"
#include "mhcsim/error.h"
#include "mhcsim/intervals.h"
#include "mhcsim/reports/table.h"
#include "mhcsim/specs.h"

using namespace mhcsim;

TEST_CASE("InputError formats file:line: key: reason") {
  InputError e("parallel.pp", "must be >= 1 (got 0)", {"x.toml", 12});
  CHECK(std::string(e.what()) == "x.toml:12: parallel.pp: must be >= 1 (got 0)");
  InputError no_file("model.layers", "missing");
  CHECK(std::string(no_file.what()) == "model.layers: missing");
}

TEST_CASE("enum spellings round-trip") {
  for (auto s : {Schedule::OneF1B, Schedule::Interleaved1F1B, Schedule::ZB1P, Schedule::DualPipe,
                 Schedule::DualPipeV})
    CHECK(parse_schedule(to_string(s)) == s);
  for (auto t : {DType::FP32, DType::BF16, DType::FP16, DType::FP8, DType::INT4})
    CHECK(parse_dtype(to_string(t)) == t);
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
