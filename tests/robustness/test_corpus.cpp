// Replays the fuzz regression corpus (tests/robustness/corpus/) and the fuzz seeds through the
// fuzz targets' own code: every input must end normally or with an InputError (issue 8).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <utility>
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

// The files of `dirs` (each a folder under the source tree, with an extension or "" for all),
// at least `at_least` of them, replayed through `target`.
template <class Target>
void replay_dirs(Target target, size_t at_least, std::initializer_list<std::pair<const char*, const char*>> dirs) {
  std::vector<fs::path> files;
  for (const auto& [dir, ext] : dirs) add_files(files, kSource / dir, ext);
  CHECK(files.size() >= at_least);
  replay(files, target);
}

TEST_CASE("fuzz corpus: scenario inputs raise nothing but InputError") {
  // At least the shipped scenarios.
  replay_dirs(mhcsim::fuzz::scenario_input, 4, {{"tests/robustness/corpus/scenario", ""}, {"scenarios", ".toml"}});
}

TEST_CASE("fuzz corpus: patterns files raise nothing but InputError") {
  replay_dirs(mhcsim::fuzz::patterns_input, 3, {{"tests/robustness/corpus/patterns", ""}, {"fuzz/seeds/patterns", ""}});
}

TEST_CASE("fuzz corpus: trace inputs raise nothing but InputError") {
  replay_dirs(mhcsim::fuzz::trace_input, 4,
              {{"tests/robustness/corpus/trace", ""}, {"fuzz/seeds/trace", ""}, {"tests/robustness/inputs", ""}});
}

TEST_CASE("fuzz corpus: request files raise nothing but InputError") {
  replay_dirs(mhcsim::fuzz::requests_input, 3, {{"tests/robustness/corpus/requests", ""}, {"fuzz/seeds/requests", ""}});
}

TEST_CASE("fuzz corpus: benchmark JSON and calibration profiles raise nothing but InputError") {
  replay_dirs(
      mhcsim::fuzz::calibration_input, 3,
      {{"tests/robustness/corpus/calibration", ""}, {"fuzz/seeds/calibration", ""}, {"tests/calib/data", ".json"}});
}

TEST_CASE("fuzz corpus: hardware files raise nothing but InputError") {
  replay_dirs(mhcsim::fuzz::hardware_input, 4,
              {{"tests/robustness/corpus/hardware", ""}, {"scenarios/hardware", ".toml"}});
}

TEST_CASE("fuzz corpus: mappings files raise nothing but InputError") {
  replay_dirs(mhcsim::fuzz::mappings_input, 2, {{"fuzz/seeds/mappings", ""}});
}
