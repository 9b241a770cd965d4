#pragma once
// Memory traffic of the residual connection: plain residual, HC and mHC (mHC paper, arXiv
// 2512.24880, Table 2 and 4.3), and the activation memory of its recompute scheme (Table 3,
// Eq. 20). An "mHC layer" here is one residual sublayer (attention or FFN): a transformer
// layer has two. Element counts exclude F's own I/O, as in Table 2.
#include <cstdint>
#include <string>
#include <vector>

#include "mhcsim/cost/kernel_bytes.h"
#include "mhcsim/specs.h"

namespace mhcsim::cost {

// per_channel x C elements of the residual stream + `coefficients` fp32 elements.
struct TrafficElems {
  double per_channel = 0;
  double coefficients = 0;
  double elements(int64_t channels) const { return per_channel * static_cast<double>(channels) + coefficients; }
};

struct TrafficRow {
  std::string operation;
  TrafficElems read;
  TrafficElems write;
};

// Table 2 rows, forward, per token.
TrafficRow residual_merge_row();                 // 2C read, C write
TrafficRow mhc_coefficients_row(int64_t n);      // nC read, n^2+2n write
TrafficRow mhc_apply_pre_row(int64_t n);         // nC+n read, C write
TrafficRow mhc_apply_post_row(int64_t n);        // C+n read, nC write
TrafficRow mhc_apply_res_row(int64_t n);         // nC+n^2 read, nC write
TrafficRow mhc_stream_merge_row(int64_t n);      // 2nC read, nC write
TrafficRow mhc_post_res_unfused_row(int64_t n);  // apply H_post + apply H_res + merge
TrafficRow mhc_post_res_fused_row(int64_t n);    // (n+1)C + n + n^2 read, nC write (4.3.1)
// All of Table 2's HC/mHC rows followed by their total: (5n+1)C+n^2+2n read,
// (3n+1)C+n^2+2n write.
std::vector<TrafficRow> mhc_table2(int64_t n);

// Bytes of a row for `tokens` tokens: C-proportional elements in `act`, coefficients in fp32.
KernelBytes traffic_bytes(const TrafficRow& r, int64_t channels, double tokens, DType act);

// Forward traffic of one mHC layer per token. n = 1 or ResidualKind::Residual is the plain
// residual merge (mHC reduces to it); fused = coefficients + apply H_pre + fused F_post,res.
TrafficRow residual_forward_row(ResidualKind kind, int64_t n, bool fused);

// Backward of an elementwise row, our model: it reads the forward inputs and the gradients of
// the outputs, and writes the gradients of the inputs (read' = read + write, write' = read).
TrafficRow backward_row(const TrafficRow& forward);

struct ResidualTraffic {
  KernelBytes forward;
  KernelBytes backward;
  KernelBytes recompute;  // forward replayed in the backward by the recompute scheme
  double total_bytes() const { return forward.total() + backward.total() + recompute.total(); }
};

// One mHC layer, one token, the model's residual kind and the precision's activation dtype.
ResidualTraffic residual_traffic_per_token(const ModelSpec& m, const PrecisionSpec& p, bool fused, bool recompute);
// A whole training step: 2 x layers mHC layers x `tokens`.
ResidualTraffic residual_traffic_per_step(const ModelSpec& m, const PrecisionSpec& p, bool fused, bool recompute,
                                          double tokens);

// Recompute (Table 3, Eq. 20): per token, keeping x_{l0} (nC) at the start of each block of
// L_r layers and recomputing the (n+2)C per layer of the block being back-propagated.
double mhc_stored_elems_no_recompute(int64_t n, int64_t channels, int64_t layers);  // (n+2)C L
double mhc_stored_elems_recompute(int64_t n, int64_t channels, int64_t layers,
                                  int64_t block);  // nC ceil(L/L_r) + (n+2)C L_r
// argmin over integer L_r in [1, L] of Eq. 20 (~ sqrt(nL/(n+2))); ties to the smaller L_r.
int64_t mhc_optimal_recompute_block(int64_t n, int64_t layers);

}  // namespace mhcsim::cost
