// The case files of a validation folder.
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

Scenario load_case(const fs::path& file, const std::vector<scenarios::Override>& overrides) {
  Scenario s = scenarios::load_scenario(file, overrides);
  if (!s.published || s.published->figures.empty())
    throw InputError("published", "a validation case needs a [published] table with at least one figure",
                     {file.string(), 0});
  return s;
}

}  // namespace

Cases load_cases(const fs::path& dir, const std::vector<scenarios::Override>& overrides) {
  Cases cases;
  std::exception_ptr first_refusal;
  for (const auto& file : case_files(dir)) {
    try {
      cases.loaded.push_back(load_case(file, overrides));
    } catch (const InputError& refused) {
      if (overrides.empty()) throw;
      (void)load_case(file, {});  // broken as written: that error, not a skip
      cases.skipped.push_back({file.string(), refused.what()});
      if (!first_refusal) first_refusal = std::current_exception();
    }
  }
  if (cases.loaded.empty()) std::rethrow_exception(first_refusal);
  return cases;
}

fs::path default_validation_dir() { return scenarios::data_dir() / "validation"; }

}  // namespace mhcsim::validate
