// HBM probes: grid-stride 16-byte copy and read; the grid is a fixed multiple of the SM count
// so every SM keeps enough loads in flight.
#include "device_utils.cuh"
#include "mhcsim/kernels/hbm_probe.h"

namespace mhcsim::kernels {
namespace {

constexpr int kThreads = 512;
constexpr int kReadBlocks = 132 * 8;  // H100/H200 SXM: 132 SMs; fixed so partials are sized on host

unsigned copy_blocks() {
  int device = 0, sms = 0;
  MHCSIM_CUDA_CHECK(cudaGetDevice(&device));
  MHCSIM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return static_cast<unsigned>(sms * 8);
}

__global__ void __launch_bounds__(kThreads)
    copy_kernel(uint4* __restrict__ dst, const uint4* __restrict__ src, int64_t n) {
  for (int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads)
    dst[i] = src[i];
}

__global__ void __launch_bounds__(kThreads)
    read_kernel(float* __restrict__ partial, const float4* __restrict__ src, int64_t n) {
  __shared__ float warp_sums[kThreads / 32];
  float s = 0;
  for (int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += int64_t(gridDim.x) * kThreads) {
    const float4 v = src[i];
    s += (v.x + v.y) + (v.z + v.w);
  }
  s = cuda::warp_sum(s);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0;
    for (int w = 0; w < kThreads / 32; ++w) total += warp_sums[w];
    partial[blockIdx.x] = total;  // written so the loads cannot be optimised away
  }
}

}  // namespace

int64_t hbm_read_partials(int64_t) { return kReadBlocks; }

void hbm_copy(void* dst, const void* src, int64_t bytes, Stream stream) {
  require(bytes > 0 && bytes % 16 == 0, "hbm.bytes", "must be a positive multiple of 16");
  copy_kernel<<<copy_blocks(), kThreads, 0, stream>>>(static_cast<uint4*>(dst), static_cast<const uint4*>(src),
                                                      bytes / 16);
  MHCSIM_CUDA_CHECK_LAUNCH();
}

void hbm_read(float* partial_sums, const void* src, int64_t bytes, Stream stream) {
  require(bytes > 0 && bytes % 16 == 0, "hbm.bytes", "must be a positive multiple of 16");
  read_kernel<<<kReadBlocks, kThreads, 0, stream>>>(partial_sums, static_cast<const float4*>(src), bytes / 16);
  MHCSIM_CUDA_CHECK_LAUNCH();
}

}  // namespace mhcsim::kernels
