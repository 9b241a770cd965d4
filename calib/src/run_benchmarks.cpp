#include "mhcsim/calib/run_benchmarks.h"

#include <fmt/format.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>

#include "mhcsim/error.h"

namespace mhcsim::calib {
namespace fs = std::filesystem;

namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char ch : s) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return out + "'";
}

bool is_executable_file(const fs::directory_entry& e) {
  std::error_code ec;
  return e.is_regular_file(ec) &&
         (e.status(ec).permissions() & fs::perms::owner_exec) != fs::perms::none;
}

}  // namespace

std::optional<std::string> detect_gpu() {
  const std::unique_ptr<FILE, int (*)(FILE*)> pipe(
      popen("nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null", "r"), pclose);
  if (!pipe) return std::nullopt;
  std::array<char, 256> line{};
  if (!fgets(line.data(), int(line.size()), pipe.get())) return std::nullopt;
  std::string name(line.data());
  while (!name.empty() && (name.back() == '\n' || name.back() == '\r' || name.back() == ' '))
    name.pop_back();
  return name.empty() || name.starts_with("NVIDIA-SMI has failed") ? std::nullopt
                                                                    : std::optional(name);
}

std::vector<fs::path> run_kernel_benchmarks(const fs::path& bench_dir, const fs::path& out_dir) {
  std::error_code ec;
  std::vector<fs::path> binaries;
  for (const auto& e : fs::directory_iterator(bench_dir, ec))
    if (is_executable_file(e)) binaries.push_back(e.path());
  if (binaries.empty())
    throw InputError("--bench-dir",
                     fmt::format("no benchmark binaries in {} (build the kernels/bench targets, or "
                                 "give measurements with --from)", bench_dir.string()));
  fs::create_directories(out_dir);
  std::vector<fs::path> outputs;
  for (const auto& bin : binaries) {
    const fs::path out = out_dir / (bin.filename().string() + ".json");
    const std::string cmd = fmt::format("{} --benchmark_out={} --benchmark_out_format=json",
                                        shell_quote(bin.string()), shell_quote(out.string()));
    if (const int rc = std::system(cmd.c_str()); rc != 0)
      throw std::runtime_error(fmt::format("benchmark failed (status {}): {}", rc, cmd));
    outputs.push_back(out);
  }
  return outputs;
}

}  // namespace mhcsim::calib
