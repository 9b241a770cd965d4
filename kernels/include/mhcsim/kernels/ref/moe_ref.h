#pragma once
// CPU references of the MoE routing kernels in moe.h, written with std::sort so they do not
// share the GPU's selection code.
#include "mhcsim/kernels/moe.h"

namespace mhcsim::kernels::ref {

void moe_gate(const MoeGateParams& p);
void moe_permute(const MoePermuteParams& p);
void moe_combine(const MoeCombineParams& p);

}  // namespace mhcsim::kernels::ref
