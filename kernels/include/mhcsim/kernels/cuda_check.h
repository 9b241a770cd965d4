#pragma once
// One exception type for CUDA and NCCL failures, carrying file:line like FlashMLA's CHECK_CUDA
// and DeepEP's EPException. Only CUDA-enabled targets include this header.
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace mhcsim::kernels {

class CudaError : public std::runtime_error {
 public:
  CudaError(const char* file, int line, const std::string& what)
      : std::runtime_error(std::string(file) + ":" + std::to_string(line) + ": " + what) {}
};

inline void check_cuda(cudaError_t status, const char* expr, const char* file, int line) {
  if (status != cudaSuccess) {
    throw CudaError(file, line, std::string(expr) + ": " + cudaGetErrorString(status));
  }
}

}  // namespace mhcsim::kernels

#define MHCSIM_CUDA_CHECK(expr) ::mhcsim::kernels::check_cuda((expr), #expr, __FILE__, __LINE__)
// After a <<<...>>> launch: configuration errors surface here, not at the next sync.
#define MHCSIM_CUDA_CHECK_LAUNCH() MHCSIM_CUDA_CHECK(cudaGetLastError())
