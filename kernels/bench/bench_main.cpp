// GPU kernel benchmarks. Names carry the kernel class and shape (BM_<kernel>/<arg>:<value>) so
// calibration can map each JSON row to a cost-model function.
#include <cstdio>
#include <cstring>

#include "bench_util.h"

int main(int argc, char** argv) {
  bool list_only = false;  // --benchmark_list_tests needs no device
  for (int i = 1; i < argc; ++i) list_only |= std::strncmp(argv[i], "--benchmark_list_tests", 22) == 0;
  if (!mhcsim::kernels::bench::add_gpu_context() && !list_only) {
    std::fprintf(stderr, "SKIPPED: no CUDA device\n");
    return 77;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
