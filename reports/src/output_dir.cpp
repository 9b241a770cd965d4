#include "mhcsim/reports/output_dir.h"

#include <fmt/format.h>
#include <unistd.h>

#include <system_error>

#include "mhcsim/error.h"

namespace mhcsim::reports {
namespace fs = std::filesystem;

void require_writable(const fs::path& path, bool force, const char* option) {
  std::error_code ec;
  if (!force && fs::symlink_status(path, ec).type() != fs::file_type::not_found)
    throw InputError(option, fmt::format("'{}' exists (use --force to replace it)", path.string()));
}

void write_directory_atomically(const fs::path& dir, bool force,
                                const std::function<void(const fs::path&)>& fill) {
  require_writable(dir, force);
  const fs::path target = fs::absolute(dir).lexically_normal();
  const fs::path parent = target.parent_path();
  fs::create_directories(parent);
  const std::string stem = target.filename().string();
  const fs::path tmp = parent / fmt::format(".{}.tmp.{}", stem, ::getpid());
  const fs::path old = parent / fmt::format(".{}.old.{}", stem, ::getpid());
  std::error_code ignored;
  fs::remove_all(tmp, ignored);
  try {
    fs::create_directory(tmp);
    fill(tmp);
    // Two renames: the old output survives until the new one is complete and in place.
    const bool replace = fs::exists(fs::symlink_status(target));
    if (replace) fs::rename(target, old);
    try {
      fs::rename(tmp, target);
    } catch (...) {
      if (replace) fs::rename(old, target);
      throw;
    }
    if (replace) fs::remove_all(old, ignored);
  } catch (...) {
    fs::remove_all(tmp, ignored);
    throw;
  }
}

}  // namespace mhcsim::reports
