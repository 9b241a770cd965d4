// GPU-vs-reference tests. Catch2 2.x has no SKIP(): without a CUDA device this exits 77,
// which CTest's SKIP_RETURN_CODE turns into "Skipped" rather than "Passed".
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cuda_runtime_api.h>

#include <cstdio>

int main(int argc, char* argv[]) {
  int devices = 0;
  const cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess || devices == 0) {
    std::printf("SKIPPED: no CUDA device (%s)\n", status == cudaSuccess ? "0 devices" : cudaGetErrorString(status));
    return 77;
  }
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);
  std::printf("GPU 0: %s, sm_%d%d\n", prop.name, prop.major, prop.minor);
  return Catch::Session().run(argc, argv);
}
