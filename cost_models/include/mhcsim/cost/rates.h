#pragma once
// Effective rates the cost model prices work with: datasheet peaks times documented default
// efficiencies, or the scenario's calibration profile where it has a fit (calibration wins).
#include <string_view>

#include "mhcsim/specs.h"

namespace mhcsim::cost {

// Default efficiencies (achieved / peak). Each says where it comes from; a calibration profile
// replaces them (gemm_efficiency, kernels["hbm_copy"], collectives["alltoall_*"]).
// GEMMs of an MoE training step (grouped expert GEMMs of a few thousand rows, FP8 fine-grained
// scaling, norms and activations fused around them): fitted once so that the DeepSeek-V3
// training scenario (with its selective recompute) lands on the measured 19.926 s/step (Liu
// et al., ISCA 2025, Table 4).
inline constexpr double kDefaultGemmEfficiency = 0.324;
// Weight-absorbed MLA decode attention: FlashMLA's 660 of 989 BF16 TFLOP/s on H800
// (DESIGN.md, FlashMLA benchmark), compute-bound once h_q s_q >= 128.
inline constexpr double kDefaultDecodeAttentionEfficiency = 660.0 / 989.0;
// Memory-bound kernels reach ~80% of HBM peak (FlashMLA dense decode 3000 of 3350 GB/s on
// H800 is 90%; elementwise kernels with small rows reach less).
inline constexpr double kDefaultHbmEfficiency = 0.8;
// DeepEP normal kernels, EP8 intra-node, 153 GB/s of H800's 200 GB/s NVLink per direction.
inline constexpr double kDefaultNvlinkEfficiency = 0.77;
// IB: 40 of 50 GB/s per GPU effective (Liu et al., ISCA 2025, sec. on the network).
inline constexpr double kDefaultNicEfficiency = 0.8;
// SMs left for compute while DeepEP communicates: 132 - 20 on H800 (DeepSeek-V3 report 3.2.2).
inline constexpr int kCommunicationSms = 20;

// Alpha-beta link: t = alpha_seconds * messages + bytes / bytes_per_second.
struct LinkRate {
  double alpha_seconds = 0;
  double bytes_per_second = 0;
  double seconds(double bytes, double messages) const {
    return alpha_seconds * messages + bytes / bytes_per_second;
  }
};

// Dense tensor FLOP/s for `dtype` inputs times the GEMM efficiency. Throws SpecError when the
// GPU has no peak for that dtype (FP8 on A100).
double gemm_flops_per_second(const Scenario& s, DType dtype);
// BF16 FLOP/s of decode attention at kDefaultDecodeAttentionEfficiency.
double decode_attention_flops_per_second(const Scenario& s);
// Fraction of SMs left for compute: (SMs - kCommunicationSms) / SMs when the step has
// cross-node EP traffic that DeepEP-style kernels overlap, 1 otherwise.
double compute_sm_fraction(const Scenario& s);
// HBM bytes/s for a kernel class (calibration kernels[kernel] -> kernels["hbm_copy"] ->
// peak x kDefaultHbmEfficiency) and its fixed launch overhead.
LinkRate hbm_rate(const Scenario& s, std::string_view kernel);
// EP all-to-all links: collectives["alltoall_intra"/"alltoall_inter"] or the catalog.
LinkRate nvlink_rate(const Scenario& s);
LinkRate nic_rate(const Scenario& s);

// All-reduce links: collectives["allreduce_intra"/"allreduce_inter"] or the catalog's NVLink /
// NIC at the default efficiencies; `cross_node` picks the class.
LinkRate allreduce_rate(const Scenario& s, bool cross_node);

// Ring all-reduce of `bytes` on each of `ranks` peers (nccl-tests' bus factor 2 (n-1)/n; one
// alpha per step of the reduce-scatter and the all-gather). 0 for one rank.
double ring_all_reduce_seconds(const LinkRate& link, double bytes, double ranks);

}  // namespace mhcsim::cost
