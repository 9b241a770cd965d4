#pragma once
// From raw per-layer matrices to the residual mappings HC and mHC would apply.
// HC (Zhu et al. 2024; mHC paper Eq. 5): H_res = alpha_res tanh(theta_res x~) + b_res, with
// b_res = I at initialisation, is the raw matrix itself and is used unconstrained. mHC (paper
// Eq. 8-9): the same matrix taken as logits H~_res, then H_res = Sinkhorn-Knopp(exp(H~_res)),
// t_max iterations of a column then a row normalisation, through the kernels' CPU reference
// (kernels/ref/sinkhorn_ref.h) in fp32 or with every intermediate rounded to bf16.
#include <string_view>

#include "mhcsim/stability/gain.h"

namespace mhcsim::stability {

enum class MappingKind { HC, MhcFp32, MhcBf16 };

struct Variant {
  MappingKind kind = MappingKind::HC;
  int sinkhorn_iters = 0;  // t_max; ignored for HC
};

std::string_view to_string(MappingKind kind);       // "HC", "mHC", "mHC"
std::string_view precision_name(MappingKind kind);  // "-", "fp32", "bf16"

// Scratch of the projection, kept between calls so that a sampler does not allocate.
struct ProjectionScratch {
  std::vector<float> logits, h;
};

// out = the residual mappings of `raw` under `v` (out is resized to raw's shape). The mHC
// mappings are computed in float (the kernel's precision) and widened to double.
void residual_mappings(const MappingStack& raw, const Variant& v, MappingStack& out, ProjectionScratch& scratch);
MappingStack residual_mappings(const MappingStack& raw, const Variant& v);

}  // namespace mhcsim::stability
