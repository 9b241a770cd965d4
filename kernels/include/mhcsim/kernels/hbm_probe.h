#pragma once
// HBM bandwidth probes: a 16-byte vectorised device copy (reads and writes `bytes`) and a
// read-only stream (reads `bytes`, writes one float per block), the two ends of the roofline
// the memory-bound kernels are measured against.
#include <cstdint>

#include "mhcsim/kernels/stream.h"

namespace mhcsim::kernels {

void hbm_copy(void* dst, const void* src, int64_t bytes, Stream stream);            // CUDA
void hbm_read(float* partial_sums, const void* src, int64_t bytes, Stream stream);  // CUDA
int64_t hbm_read_partials(int64_t bytes);                                           // floats needed in partial_sums

}  // namespace mhcsim::kernels
