#pragma once
// CPU references of the mHC kernels in mhcsim/kernels/mhc.h: same params (host pointers),
// double accumulation, each output rounded once to its storage type. The unfused path rounds
// its two intermediates to bf16 as the three-kernel GPU path does.
#include "mhcsim/kernels/mhc.h"

namespace mhcsim::kernels::ref {

void mhc_coeff(const MhcCoeffParams& p);
void mhc_apply_pre(const MhcPreParams& p);
void mhc_post_res_fused(const MhcPostResParams& p);
void mhc_post_res_unfused(const MhcPostResParams& p);

}  // namespace mhcsim::kernels::ref
