#pragma once
// fp32-output CPU reference of the paged, weight-absorbed MLA decode in mla_decode.h (double
// accumulation). Reads only the first seq_lens[b] rows through the block table, so poisoned
// padding and unused table entries never reach it.
#include "mhcsim/kernels/mla_decode.h"

namespace mhcsim::kernels::ref {

// out: [batch][heads][512] latent output, lse: [batch][heads]; p.out/p.lse are not touched.
void mla_decode(const MlaDecodeParams& p, float* out, float* lse);

}  // namespace mhcsim::kernels::ref
