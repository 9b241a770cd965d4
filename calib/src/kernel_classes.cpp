#include "mhcsim/calib/kernel_classes.h"

#include <algorithm>

namespace mhcsim::calib {

const std::vector<KernelClass>& kernel_classes() {
  // One row per benchmark family of kernels/bench (issue 5): mhcsim_kernel_bench's BM_* and
  // mhcsim_nccl_bench's NCCL_*; GEMM rows for a GEMM benchmark with M/N/K args.
  static const std::vector<KernelClass> classes = {
      {"hbm_copy", FitKind::Bandwidth},
      {"hbm_memcpy_d2d", FitKind::Bandwidth},
      {"hbm_read", FitKind::Bandwidth},
      {"mhc_coeff", FitKind::Bandwidth},
      {"mhc_coeff_sinkhorn", FitKind::Bandwidth},
      {"mhc_sinkhorn_fwd", FitKind::Bandwidth},
      {"mhc_sinkhorn_bwd", FitKind::Bandwidth},
      {"mhc_pre", FitKind::Bandwidth},
      {"mhc_post_res_fused", FitKind::Bandwidth},
      {"mhc_post_res_unfused", FitKind::Bandwidth},
      {"mla_decode", FitKind::Bandwidth},
      {"moe_gate", FitKind::Bandwidth},
      {"moe_permute", FitKind::Bandwidth},
      {"moe_combine", FitKind::Bandwidth},
      {"nccl_alltoall", FitKind::Collective, CollectiveOp::AllToAll},
      {"nccl_allreduce", FitKind::Collective, CollectiveOp::AllReduce},
      {"gemm_bf16", FitKind::Gemm, {}, GemmPrecision::BF16},
      {"gemm_fp8", FitKind::Gemm, {}, GemmPrecision::FP8},
  };
  return classes;
}

const KernelClass* find_kernel_class(std::string_view family) {
  // BM_<class> from mhcsim_kernel_bench, NCCL_<op> from mhcsim_nccl_bench.
  std::string name(family);
  if (name.starts_with("BM_")) name.erase(0, 3);
  if (name.starts_with("NCCL_")) name = "nccl_" + name.substr(5);
  const auto& all = kernel_classes();
  const auto it = std::find_if(all.begin(), all.end(), [&](const KernelClass& c) { return c.name == name; });
  return it == all.end() ? nullptr : &*it;
}

std::string known_kernel_class_names() {
  std::string names;
  for (const auto& c : kernel_classes()) {
    if (!names.empty()) names += ", ";
    names += c.name;
  }
  return names;
}

double bus_factor(CollectiveOp op, int ranks) {
  const double n = ranks;
  return op == CollectiveOp::AllReduce ? 2.0 * (n - 1) / n : (n - 1) / n;
}

int alpha_steps(CollectiveOp op, int ranks) { return op == CollectiveOp::AllReduce ? 2 * (ranks - 1) : ranks - 1; }

}  // namespace mhcsim::calib
