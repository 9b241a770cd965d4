// The case files of a validation folder, and the suite over them.
#include <algorithm>
#include <exception>
#include <system_error>

#include "mhcsim/error.h"
#include "mhcsim/validate/validate.h"

namespace mhcsim::validate {

namespace fs = std::filesystem;

std::vector<fs::path> case_files(const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw InputError("--dir", "not a directory (expected a folder of validation case files *.toml)", {dir.string(), 0});
  std::vector<fs::path> files;
  fs::directory_iterator it(dir, ec);
  if (ec) throw InputError("--dir", "cannot read the directory (" + ec.message() + ")", {dir.string(), 0});
  for (const auto& entry : it) {
    if (entry.path().extension() == ".toml" && entry.is_regular_file(ec)) files.push_back(entry.path());
  }
  if (files.empty()) throw InputError("--dir", "no validation case files (*.toml) in the directory", {dir.string(), 0});
  std::sort(files.begin(), files.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename().string() < b.filename().string(); });
  return files;
}

namespace {

// The case's rows: loaded with `overrides`, finished by `prepare`, predicted.
std::vector<Row> case_rows(const fs::path& file, const std::vector<scenarios::Override>& overrides,
                           const std::function<void(Scenario&)>& prepare) {
  Scenario s = scenarios::load_scenario(file, overrides);
  if (prepare) prepare(s);
  return validate_case(s);
}

}  // namespace

Suite validate_suite(const fs::path& dir, const std::vector<scenarios::Override>& overrides,
                     const std::function<void(Scenario&)>& prepare) {
  Suite suite;
  std::exception_ptr first_refusal;
  for (const auto& file : case_files(dir)) {
    try {
      for (auto& r : case_rows(file, overrides, prepare)) suite.report.rows.push_back(std::move(r));
      ++suite.cases;
    } catch (const InputError& refused) {
      if (overrides.empty()) throw;
      (void)case_rows(file, {}, prepare);  // broken as written: that error, not a skip
      suite.skipped.push_back({file.string(), refused.what()});
      if (!first_refusal) first_refusal = std::current_exception();
    }
  }
  if (suite.cases == 0) std::rethrow_exception(first_refusal);
  suite.report.summary = summarize(suite.report.rows);
  return suite;
}

fs::path default_validation_dir() { return scenarios::data_dir() / "validation"; }

}  // namespace mhcsim::validate
