#pragma once
// CPU reference of Sinkhorn-Knopp (mHC paper Eq. 9 and 4.3.1) for one n x n matrix, in float
// (the kernel's precision) or double (for finite-difference checks). The backward keeps every
// intermediate matrix, so it is independent of the GPU's recompute-and-undo scheme.
#include <cstdint>

#include "mhcsim/kernels/mhc.h"

namespace mhcsim::kernels::ref {

// h = SK(exp(logits)): `iterations` times a column then a row normalisation. exp is taken of
// logits minus their maximum; the first column normalisation cancels that constant factor.
template <class T>
void sinkhorn_forward(const T* logits, T* h, int64_t n, int iterations);

// How the forward keeps its intermediate matrices: in T (the paper keeps Sinkhorn in fp32,
// 4.3.1), or rounded to bf16 after the exp and after every normalisation (sums still taken in
// T), which is what a bf16 Sinkhorn drifts by (DESIGN.md, mHC: "bf16 Sinkhorn drifting").
enum class SinkhornStorage { Native, Bf16 };

// The same forward in place in h, without the backward's saved states (no allocation); with
// Native storage its result is bit-identical to the overload above.
template <class T>
void sinkhorn_forward(const T* logits, T* h, int64_t n, int iterations, SinkhornStorage storage);

// grad_logits = d<grad_h, SK(exp(logits))> / d logits, exact through every iteration.
template <class T>
void sinkhorn_backward(const T* logits, const T* grad_h, T* grad_logits, int64_t n, int iterations);

// All tokens of the params, float.
void sinkhorn_forward(const SinkhornParams& p);
void sinkhorn_backward(const SinkhornParams& p);

}  // namespace mhcsim::kernels::ref
