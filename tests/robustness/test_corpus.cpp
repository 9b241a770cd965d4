// Replays the fuzz regression corpus (tests/robustness/corpus/) and the fuzz seeds through the
// fuzz targets' own code: every input must end normally or with an InputError (issue 8).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "targets.h"

namespace fs = std::filesystem;

namespace {

// Regular files of `dir` with extension `ext` (all but README.md when `ext` is empty).
void add_files(std::vector<fs::path>& out, const fs::path& dir, const std::string& ext = "") {
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && (ext.empty() ? e.path().filename() != "README.md" : e.path().extension() == ext))
      out.push_back(e.path());
}

std::vector<uint8_t> bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

template <class Target>
void replay(const std::vector<fs::path>& files, Target target) {
  for (const auto& f : files) {
    INFO(f.string());
    const auto data = bytes_of(f);
    CHECK_NOTHROW(target(data.data(), data.size()));
  }
}

const fs::path kSource = MHCSIM_SOURCE_DIR;

}  // namespace

TEST_CASE("fuzz corpus: scenario inputs raise nothing but InputError") {
  std::vector<fs::path> files;
  add_files(files, kSource / "tests/robustness/corpus/scenario");
  add_files(files, kSource / "scenarios", ".toml");
  CHECK(files.size() >= 4);  // at least the shipped scenarios
  replay(files, mhcsim::fuzz::scenario_input);
}

TEST_CASE("fuzz corpus: patterns files raise nothing but InputError") {
  std::vector<fs::path> files;
  add_files(files, kSource / "tests/robustness/corpus/patterns");
  add_files(files, kSource / "fuzz/seeds/patterns");
  CHECK(files.size() >= 3);
  replay(files, mhcsim::fuzz::patterns_input);
}

TEST_CASE("fuzz corpus: trace inputs raise nothing but InputError") {
  std::vector<fs::path> files;
  add_files(files, kSource / "tests/robustness/corpus/trace");
  add_files(files, kSource / "fuzz/seeds/trace");
  add_files(files, kSource / "tests/robustness/inputs");
  CHECK(files.size() >= 4);
  replay(files, mhcsim::fuzz::trace_input);
}

TEST_CASE("fuzz corpus: request files raise nothing but InputError") {
  std::vector<fs::path> files;
  add_files(files, kSource / "tests/robustness/corpus/requests");
  add_files(files, kSource / "fuzz/seeds/requests");
  CHECK(files.size() >= 3);
  replay(files, mhcsim::fuzz::requests_input);
}

TEST_CASE("fuzz corpus: benchmark JSON and calibration profiles raise nothing but InputError") {
  std::vector<fs::path> files;
  add_files(files, kSource / "tests/robustness/corpus/calibration");
  add_files(files, kSource / "fuzz/seeds/calibration");
  add_files(files, kSource / "tests/calib/data", ".json");
  CHECK(files.size() >= 3);
  replay(files, mhcsim::fuzz::calibration_input);
}

TEST_CASE("fuzz corpus: mappings files raise nothing but InputError") {
  std::vector<fs::path> files;
  add_files(files, kSource / "fuzz/seeds/mappings");
  CHECK(files.size() >= 2);
  replay(files, mhcsim::fuzz::mappings_input);
}
