#pragma once
// Device helpers shared by the .cu files: bf16 vectors of 8 (16-byte loads), warp reductions,
// the launch dispatch over the mHC expansion rate n.
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <mutex>
#include <string>
#include <type_traits>

#include "mhcsim/error.h"
#include "mhcsim/kernels/bf16.h"
#include "mhcsim/kernels/cuda_check.h"
#include "mhcsim/kernels/stream.h"

namespace mhcsim::kernels::cuda {

constexpr unsigned kFullMask = 0xffffffffu;

// 8 bf16 values = one 16-byte vector.
__device__ __forceinline__ void load8(const bf16_bits* src, float (&v)[8]) {
  const uint4 raw = *reinterpret_cast<const uint4*>(src);
  const __nv_bfloat162* pairs = reinterpret_cast<const __nv_bfloat162*>(&raw);
#pragma unroll
  for (int k = 0; k < 4; ++k) {
    const float2 f = __bfloat1622float2(pairs[k]);
    v[2 * k] = f.x;
    v[2 * k + 1] = f.y;
  }
}

__device__ __forceinline__ void store8(bf16_bits* dst, const float (&v)[8]) {
  uint4 raw;
  __nv_bfloat162* pairs = reinterpret_cast<__nv_bfloat162*>(&raw);
#pragma unroll
  for (int k = 0; k < 4; ++k) pairs[k] = __floats2bfloat162_rn(v[2 * k], v[2 * k + 1]);
  *reinterpret_cast<uint4*>(dst) = raw;
}

__device__ __forceinline__ float bf16_load(const bf16_bits* src) {
  return __bfloat162float(*reinterpret_cast<const __nv_bfloat16*>(src));
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(kFullMask, v, offset);
  return v;
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(kFullMask, v, offset));
  return v;
}

inline cudaStream_t native(Stream s) { return s; }

// Calls f(std::integral_constant<int, N>{}) for the n the kernels are instantiated for.
template <class F>
void dispatch_streams(int64_t n, F&& f) {
  switch (n) {
    case 1:
      f(std::integral_constant<int, 1>{});
      return;
    case 2:
      f(std::integral_constant<int, 2>{});
      return;
    case 4:
      f(std::integral_constant<int, 4>{});
      return;
    case 8:
      f(std::integral_constant<int, 8>{});
      return;
    default:
      require(false, "n", "the CUDA mHC kernels are built for n in {1, 2, 4, 8}");
  }
}

// More than 48 KiB of dynamic shared memory needs an opt-in per kernel and device. One object
// per kernel instantiation (a function-local static at the launch) does it once per device,
// after checking the device's limit, so a GPU with less (sm_86/89: 99 KiB) gets a clear
// error rather than a failed launch.
class SharedMemoryOptIn {
 public:
  void ensure(const void* kernel, size_t bytes, const char* key) {
    int device = 0;
    MHCSIM_CUDA_CHECK(cudaGetDevice(&device));
    const uint64_t bit = device < 64 ? uint64_t{1} << device : 0;
    std::lock_guard<std::mutex> lock(mutex_);
    if (bit != 0 && (done_ & bit) != 0) return;
    int limit = 0;
    MHCSIM_CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    require(bytes <= size_t(limit), key,
            "needs " + std::to_string(bytes) + " B of shared memory per block; this GPU allows " +
                std::to_string(limit) + " B (the kernels target sm_80 and sm_90)");
    MHCSIM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
    done_ |= bit;
  }

 private:
  std::mutex mutex_;
  uint64_t done_ = 0;  // bit d: done on device d
};

inline unsigned grid_1d(int64_t items, int threads) { return static_cast<unsigned>((items + threads - 1) / threads); }

}  // namespace mhcsim::kernels::cuda
