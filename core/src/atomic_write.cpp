#include "mhcsim/atomic_write.h"

#include <fmt/format.h>
#include <unistd.h>

#include <fstream>
#include <stdexcept>
#include <system_error>

namespace mhcsim {

void write_file_atomically(const std::filesystem::path& path,
                           const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  // `-o out/sweep` on a fresh checkout: make the folder, as the report's output does.
  std::error_code made;
  fs::create_directories(dir, made);
  if (made || !fs::is_directory(dir))
    throw std::runtime_error(fmt::format("{}: cannot create the output directory{}", dir.string(),
                                         made ? " (" + made.message() + ")" : ""));
  const fs::path tmp = dir / fmt::format(".{}.tmp.{}", path.filename().string(), ::getpid());
  try {
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (!out) throw std::runtime_error(fmt::format("{}: cannot create file", tmp.string()));
      write(out);
      out.flush();
      if (!out) throw std::runtime_error(fmt::format("{}: write failed", path.string()));
    }
    fs::rename(tmp, path);
  } catch (...) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw;
  }
}

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  write_file_atomically(path, [&](std::ostream& out) { out.write(contents.data(), static_cast<std::streamsize>(contents.size())); });
}

}  // namespace mhcsim
