#pragma once
// Achieved time of one GEMM (or a grouped GEMM of equal groups) from its shape, not from one
// efficiency constant. Three physical effects, each a term:
//   mainloop  2 M N K / (peak x plateau efficiency x wave efficiency): output tiles of the
//             library's tile shape are spread over the SMs in waves; a partly filled last wave
//             and tiles padded past M or N idle tensor cores. The library is assumed to pick
//             the best of a few tile shapes, as cuBLAS's and DeepGEMM's heuristics do.
//   operands  (M K + K N) x input bytes / HBM: small-M GEMMs (decode, small experts) stream
//             their weights and are memory-bound; the mainloop overlaps these reads.
//   epilogue  M N x output bytes / HBM (twice when accumulating into C): writing C does not
//             overlap the mainloop of the same tile, which is why short-K GEMMs lose
//             efficiency (DeepGEMM's K = 512 row).
// t = max(mainloop, operands) + epilogue + launch.
#include <cstdint>

#include "mhcsim/dtype.h"

namespace mhcsim::cost {

struct GemmShape {
  int64_t m = 0;       // rows of A and C (tokens)
  int64_t n = 0;       // columns of B and C
  int64_t k = 0;       // reduction
  int64_t groups = 1;  // equal independent GEMMs in one launch (grouped experts, batched heads)
  DType input = DType::BF16;
  DType output = DType::BF16;
  bool accumulate = false;  // C += A B (beta = 1): the epilogue reads C before writing it, as
                            // weight gradients accumulate into fp32 main_grad over micro-batches
  double flops() const {
    return 2.0 * static_cast<double>(groups) * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  }
};

// What a GPU offers a GEMM: the dtype's dense tensor peak times the plateau efficiency a large,
// well-shaped GEMM reaches (the calibrated `gemm_efficiency` when a profile has one), the SMs
// left for it, achieved HBM bytes/s and the launch overhead.
struct GemmRates {
  double peak_flops_per_second = 0;
  double plateau_efficiency = 0;
  int sms = 0;
  double hbm_bytes_per_second = 0;
  double launch_seconds = 0;
};

struct GemmTime {
  double seconds = 0;
  double mainloop_seconds = 0;
  double operand_seconds = 0;
  double epilogue_seconds = 0;
  double wave_efficiency = 0;  // useful MACs / MACs the waves of the chosen tile shape occupy
  int64_t tile_m = 0, tile_n = 0;
};

GemmTime gemm_time(const GemmShape& shape, const GemmRates& rates);

}  // namespace mhcsim::cost
