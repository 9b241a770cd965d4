#include "mhcsim/calib/run_benchmarks.h"

#include <fmt/format.h>
#include <unistd.h>

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

std::vector<std::string> output_lines(const char* command) {
  std::vector<std::string> lines;
  const std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command, "r"), pclose);
  if (!pipe) return lines;
  std::array<char, 512> buf{};
  while (fgets(buf.data(), int(buf.size()), pipe.get())) {
    std::string line(buf.data());
    while (!line.empty() && (line.back() == '\n' || line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) lines.push_back(line);
  }
  return lines;
}

void run_or_throw(const std::string& cmd) {
  if (const int rc = std::system(cmd.c_str()); rc != 0)
    throw std::runtime_error(fmt::format("benchmark failed (status {}): {}", rc, cmd));
}

}  // namespace

std::vector<std::string> detect_gpus() {
  auto names = output_lines("nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null");
  if (!names.empty() && names.front().starts_with("NVIDIA-SMI has failed")) names.clear();
  return names;
}

BenchRun run_kernel_benchmarks(const fs::path& bench_dir, const fs::path& out_dir, int gpus) {
  const fs::path kernels = bench_dir / "mhcsim_kernel_bench";
  std::error_code ec;
  if (!fs::is_regular_file(kernels, ec))
    throw InputError("--bench-dir", fmt::format("no {} (build the mhcsim_kernel_bench target, or give "
                                                "measurements with --from)",
                                                kernels.string()));
  fs::create_directories(out_dir);
  BenchRun run;
  run.files.push_back(out_dir / "kernels_bench.json");
  run_or_throw(fmt::format("{} --benchmark_out={} --benchmark_out_format=json", shell_quote(kernels.string()),
                           shell_quote(run.files.back().string())));

  // The NCCL probe needs one MPI rank per GPU (flags as in kernels/device_check.sh).
  const fs::path nccl = bench_dir / "mhcsim_nccl_bench";
  if (gpus < 2) {
    run.notes.push_back("NCCL probe not run: it needs 2 or more GPUs");
  } else if (!fs::is_regular_file(nccl, ec) || output_lines("command -v mpirun").empty()) {
    run.notes.push_back(fmt::format("NCCL probe not run: no {} or no mpirun", nccl.string()));
  } else {
    run.files.push_back(out_dir / "nccl_bench.json");
    run_or_throw(fmt::format("mpirun {}--oversubscribe -np {} {} -b 1M -e 1G -f 4 -n 20 -w 5 -c 1 --json {}",
                             geteuid() == 0 ? "--allow-run-as-root " : "", gpus, shell_quote(nccl.string()),
                             shell_quote(run.files.back().string())));
  }
  return run;
}

}  // namespace mhcsim::calib
