#pragma once
// cudaStream_t is `struct CUstream_st*`; declaring the struct lets the params headers name a
// stream without including CUDA. nullptr is the default stream.
struct CUstream_st;

namespace mhcsim::kernels {
using Stream = CUstream_st*;
}  // namespace mhcsim::kernels
