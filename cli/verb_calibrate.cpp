// `mhcsim calibrate`: measure (kernels/bench on the local GPU) or read Google Benchmark JSON
// (--from), fit the model's free parameters, write the versioned profile, and with --report
// show predicted vs measured for every point (calculon llm-validation style).
#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <stdexcept>

#include "common.h"
#include "mhcsim/calib/calibrate.h"
#include "mhcsim/calib/profile_json.h"
#include "mhcsim/calib/report.h"
#include "mhcsim/calib/run_benchmarks.h"
#include "mhcsim/error.h"
#include "verbs.h"

namespace mhcsim::cli {
namespace {

namespace fs = std::filesystem;

struct CalibrateOptions {
  OutputOptions out;
  std::vector<std::string> from;
  std::string output = "calibration.json";
  std::string gpu;
  std::string bench_dir;   // default: kernels/bench beside this executable's build tree
  std::string save_bench;  // default: <output>.bench/
  bool report = false;
  bool check = false;
  bool force = false;
};

fs::path default_bench_dir() {
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path("kernels/bench") : exe.parent_path().parent_path() / "kernels" / "bench";
}

// Benchmark JSON to fit: --from, or a fresh run of kernels/bench on the local GPU.
std::vector<fs::path> measurement_files(const CalibrateOptions& o) {
  if (!o.from.empty()) return {o.from.begin(), o.from.end()};
  const auto gpus = calib::detect_gpus();
  if (gpus.empty())
    throw InputError("calibrate",
                     "no GPU found (nvidia-smi lists none) and no --from given "
                     "(expected --from BENCH.json, Google Benchmark JSON output)");
  const fs::path bench = o.bench_dir.empty() ? default_bench_dir() : fs::path(o.bench_dir);
  const fs::path save = o.save_bench.empty() ? fs::path(o.output + ".bench") : fs::path(o.save_bench);
  const calib::BenchRun run = calib::run_kernel_benchmarks(bench, save, int(gpus.size()));
  std::cerr << fmt::format("mhcsim: ran the benchmarks in {} on {} x {}; JSON in {}\n", bench.string(), gpus.size(),
                           gpus.front(), save.string());
  for (const auto& note : run.notes) std::cerr << "mhcsim: note: " << note << "\n";
  return run.files;
}

void print_text(const calib::Calibration& c, bool report) {
  if (report) {
    calib::points_table(c).print_text(std::cout);
    std::cout << "\n";
  }
  calib::fits_table(c).print_text(std::cout);
  std::cout << "\n";
  reports::print_quantities(
      std::cout,
      fmt::format("calibration of {} ({}), measured {}", c.profile.gpu_name,
                  c.profile.catalog_gpu.empty() ? "not in catalog" : c.profile.catalog_gpu, c.profile.date),
      calib::summary_quantities(c));
}

}  // namespace

void setup_calibrate(CLI::App& app) {
  auto opts = std::make_shared<CalibrateOptions>();
  auto* cmd = app.add_subcommand("calibrate",
                                 "Fit kernel bandwidths, collective alpha-beta and GEMM efficiency to benchmarks "
                                 "and write a calibration profile");
  add_output_options(*cmd, opts->out);
  cmd->add_option("--from", opts->from,
                  "Google Benchmark JSON (--benchmark_out) to fit instead of running kernels/bench "
                  "(repeatable)")
      ->check(path_flag("a Google Benchmark JSON file"));
  cmd->add_option("-o,--output", opts->output, "Profile to write (JSON, written atomically)")
      ->capture_default_str()
      ->check(path_flag());
  cmd->add_option("--gpu", opts->gpu, "Catalog GPU key when the driver's GPU name matches none");
  cmd->add_option("--bench-dir", opts->bench_dir,
                  "Directory holding mhcsim_kernel_bench and mhcsim_nccl_bench (default: this build's kernels/bench)")
      ->check(path_flag("a directory name"));
  cmd->add_option("--save-bench", opts->save_bench, "Where a run keeps its benchmark JSON (default: <output>.bench/)")
      ->check(path_flag("a directory name"));
  cmd->add_flag("--report", opts->report, "Predicted vs measured time and error for every point");
  cmd->add_flag("--check", opts->check, "Exit 1 when the fit misses the target (median error <= 5%, max <= 15%)");
  cmd->add_flag("--force", opts->force, "Replace an existing profile (-o) mhcsim wrote");
  cmd->callback([opts] {
    calib::require_profile_output(opts->output, opts->force, "-o");  // before the kernels run, not after
    std::vector<calib::BenchFile> files;
    for (const auto& f : measurement_files(*opts)) files.push_back(calib::read_benchmark_file(f));
    const calib::Calibration c = calib::calibrate(files, {opts->gpu});
    calib::write_calibration(opts->output, c);
    for (const auto& w : c.warnings) std::cerr << "mhcsim: warning: " << w << "\n";
    if (opts->out.json) {
      // The results are the profile as written (its own file format, read back by --calibration).
      Output{true, {"calibrate", "", "", {}}}.print_document(
          {{"from", opts->from},
           {"gpu", opts->gpu.empty() ? nlohmann::json() : nlohmann::json(opts->gpu)},
           {"output", opts->output}},
          calib::calibration_to_json(c));
    } else {
      print_text(c, opts->report);
      std::cout << "# profile written to " << opts->output
                << " (use it with --calibration or scenario [calibration] profile)\n";
    }
    const calib::ErrorStats s = calib::error_stats(c.points);
    if (opts->check && !s.meets_target())
      throw std::runtime_error(
          fmt::format("calibration misses the target: median {:.2f}%, max {:.2f}% (expected median <= {}%, "
                      "max <= {}%)",
                      s.median_abs_pct, s.max_abs_pct, calib::kTargetMedianErrorPct, calib::kTargetMaxErrorPct));
  });
}

}  // namespace mhcsim::cli
