#pragma once
// Tensor-core and async-copy primitives (PTX ISA 8.x, sm_80+) shared by the kernels that run
// their inner products on mma.sync: MLA decode and the mHC coefficient GEMM.
//
// mma.sync.m16n8k16 bf16 -> fp32 fragments, with g = lane / 4 and q = 2 (lane % 4) (PTX ISA,
// "Matrix Fragments for mma.m16n8k16 with floating point type"):
//   A (16 x 16, row-major): a0 = A[g][q..q+1],   a1 = A[g+8][q..q+1],
//                           a2 = A[g][q+8..q+9], a3 = A[g+8][q+8..q+9]
//   B (16 x 8, k x n):      b0 = B[q..q+1][g],   b1 = B[q+8..q+9][g]
//   C (16 x 8):             c0, c1 = C[g][q], C[g][q+1];  c2, c3 = C[g+8][q], C[g+8][q+1]
// Each 32-bit A/B register holds two bf16, the lower k in the low half.
#include <cuda_bf16.h>

#include <cstdint>

#include "mhcsim/kernels/bf16.h"

namespace mhcsim::kernels::cuda {

__device__ __forceinline__ uint32_t smem_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

// 16-byte global -> shared copy that bypasses L1; src_bytes = 0 writes zeros and reads nothing
// (the tail of a sequence or a padded head: never read memory the caller does not own).
__device__ __forceinline__ void cp_async16(void* smem, const void* global, bool valid) {
  const int src_bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_address(smem)), "l"(global),
               "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int Pending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(Pending));
}

__device__ __forceinline__ uint32_t load_u32(const void* smem) { return *static_cast<const uint32_t*>(smem); }

__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const uint32_t*>(&v);
}

// Four transposed 8x8 bf16 matrices; lane i gives the address of row i % 8 of matrix i / 8.
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_address(row)));
}

// c += a b on one 16 x 8 x 16 tile.
__device__ __forceinline__ void mma_bf16(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The A fragment of rows [0, 16) and columns [k, k + 16) of a row-major bf16 tile in shared
// memory whose row pitch is `pitch` elements.
__device__ __forceinline__ void load_a_fragment(uint32_t (&a)[4], const bf16_bits* tile, int pitch, int k, int lane) {
  const int g = lane / 4, q = 2 * (lane % 4);
  a[0] = load_u32(tile + g * pitch + k + q);
  a[1] = load_u32(tile + (g + 8) * pitch + k + q);
  a[2] = load_u32(tile + g * pitch + k + q + 8);
  a[3] = load_u32(tile + (g + 8) * pitch + k + q + 8);
}

}  // namespace mhcsim::kernels::cuda
