#pragma once
// Which model parameter a Google Benchmark measures. Benchmarks in kernels/bench are named
// BM_<class>/<arg>:<value>/.../manual_time; the class decides the fit: bandwidth
// (t = t0 + bytes / bw), collective (alpha-beta, intra- or inter-node) or GEMM efficiency.
#include <string>
#include <string_view>
#include <vector>

namespace mhcsim::calib {

enum class FitKind { Bandwidth, Collective, Gemm };

// Collectives: nccl-tests' bus-bandwidth factor and the alpha steps of the algorithm.
enum class CollectiveOp { AllToAll, AllReduce };

enum class GemmPrecision { BF16, FP8 };

struct KernelClass {
  std::string_view name;  // "mhc_post_res_fused": profile key (collectives add _intra/_inter)
  FitKind kind = FitKind::Bandwidth;
  CollectiveOp op = CollectiveOp::AllToAll;       // Collective only
  GemmPrecision precision = GemmPrecision::BF16;  // Gemm only
};

// Every class calibrate knows, in table order.
const std::vector<KernelClass>& kernel_classes();
// The class of a benchmark family ("BM_mhc_pre", "NCCL_alltoall" or "mhc_pre"); nullptr when
// unknown.
const KernelClass* find_kernel_class(std::string_view family);
// "hbm_copy, mhc_coeff, ..." for error messages.
std::string known_kernel_class_names();

// nccl-tests (doc/PERFORMANCE.md): busbw = algbw x factor; all-to-all (n-1)/n, all-reduce
// 2(n-1)/n.
double bus_factor(CollectiveOp op, int ranks);
// Latency steps of the usual algorithm: pairwise exchange / ring, (n-1) or 2(n-1) messages
// (DESIGN.md: T = (p-1) alpha + n beta).
int alpha_steps(CollectiveOp op, int ranks);

}  // namespace mhcsim::calib
