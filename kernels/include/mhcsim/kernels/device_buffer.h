#pragma once
// Owning device allocation for tests and benchmarks (CUDA-enabled targets only).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <vector>

#include "mhcsim/kernels/cuda_check.h"

namespace mhcsim::kernels {

template <class T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t count) : count_(count) {
    if (count_ > 0) MHCSIM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), bytes()));
  }
  explicit DeviceBuffer(const std::vector<T>& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() {
    if (ptr_) cudaFree(ptr_);  // no throw from a destructor
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() const { return ptr_; }  // named like std::vector's, for kernel_buffers.h
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

  void upload(const std::vector<T>& host) {
    if (count_ > 0) MHCSIM_CUDA_CHECK(cudaMemcpy(ptr_, host.data(), bytes(), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_ > 0) MHCSIM_CUDA_CHECK(cudaMemcpy(host.data(), ptr_, bytes(), cudaMemcpyDeviceToHost));
    return host;
  }
  void fill_bytes(int value) {
    if (count_ > 0) MHCSIM_CUDA_CHECK(cudaMemset(ptr_, value, bytes()));
  }

 private:
  size_t count_ = 0;
  T* ptr_ = nullptr;
};

}  // namespace mhcsim::kernels
