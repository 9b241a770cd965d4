#pragma once
// Effective rates the cost model prices work with: datasheet peaks times documented default
// efficiencies, or the scenario's calibration profile where it has a fit (calibration wins).
#include <string_view>

#include "mhcsim/specs.h"

namespace mhcsim::cost {

// Default efficiencies (achieved / peak). Each says where it comes from; none is fitted to a
// training run. A calibration profile replaces them (gemm_efficiency, kernels["hbm_copy"],
// collectives["alltoall_*"]).
//
// GEMM plateau efficiency: what a large, well-shaped GEMM reaches before the shape model
// (gemm_model.h: wave quantization, operand streaming, epilogue) takes its share.
// BF16/FP16 (cuBLAS): "optimized GEMM can reach up to 80-90% of the theoretical maximum device
// throughput" (Dao, FlashAttention-2, 2023, sec. 1): the middle of that range.
inline constexpr double kDefaultGemmEfficiencyBf16 = 0.85;
// FP8 with fine-grained scaling (DeepGEMM README, H800): 1358 TFLOPS of 1979 at M=4096,
// N=7168, K=16384, its best dense shape; the shape model charges that shape 3% for the last
// wave and 3% for the epilogue, so the plateau is 1358 / 1979 / 0.94 = 0.73. (The CUDA-core
// promotion of the partial sums is why FP8 plateaus lower than BF16.)
inline constexpr double kDefaultGemmEfficiencyFp8 = 0.73;
// DeepSeek's CUTLASS 3.6-based FP8 GEMMs (precision.fp8_gemm_kernels = "cutlass-3.6"), what
// DeepGEMM's first README (2025-02-25, "Performance") compares against: DeepGEMM is 1.2x faster
// at the very row the plateau above comes from (4096 x 7168 x 16384) and on three of the four
// grouped (MoE, contiguous layout) training shapes, so that plateau over 1.2.
inline constexpr double kCutlass36Fp8Slowdown = 1.2;
// Fused attention core (FlashAttention-2, Dao 2023: "50-73% of the theoretical maximum FLOPs/s
// on A100"; FlashAttention-3, Shah et al. 2024: up to 75% on H100 in the forward). Forward at
// 0.6 of the BF16 peak, backward (5 GEMMs, more shared-memory traffic, slower in both papers'
// plots) at the low end of the range, 0.5.
inline constexpr double kDefaultAttentionForwardEfficiency = 0.6;
inline constexpr double kDefaultAttentionBackwardEfficiency = 0.5;
// Launch and dependency gap per kernel on the GPU side of an asynchronous stream (a few
// microseconds per launch: NVIDIA, "Getting Started with CUDA Graphs", 2019).
inline constexpr double kDefaultLaunchSeconds = 2e-6;
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
  double seconds(double bytes, double messages) const { return alpha_seconds * messages + bytes / bytes_per_second; }
};

// What the GPU offers a GEMM with `dtype` inputs: dense tensor peak, plateau efficiency
// (calibration's gemm_efficiency, else the dtype's default), the SMs left for compute
// (compute_sm_fraction), achieved HBM bytes/s and the launch overhead. Throws SpecError when the
// GPU has no peak for that dtype (FP8 on A100).
struct GemmRates;
GemmRates gemm_rates(const Scenario& s, DType dtype);
// Plateau FLOP/s: peak x plateau efficiency x compute_sm_fraction (roofline users: serving).
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
