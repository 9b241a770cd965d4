#include "mhcsim/calib/kernel_classes.h"

#include <algorithm>

namespace mhcsim::calib {

const std::vector<KernelClass>& kernel_classes() {
  // One row per kernels/bench family (issue 5): probes, mHC, MLA, MoE, NCCL, GEMM.
  static const std::vector<KernelClass> classes = {
      {"hbm_copy", FitKind::Bandwidth},
      {"mhc_coeff", FitKind::Bandwidth},
      {"sinkhorn", FitKind::Bandwidth},
      {"sinkhorn_backward", FitKind::Bandwidth},
      {"mhc_pre", FitKind::Bandwidth},
      {"mhc_post_res_fused", FitKind::Bandwidth},
      {"mhc_post_res_unfused", FitKind::Bandwidth},
      {"mla_decode", FitKind::Bandwidth},
      {"moe_gate", FitKind::Bandwidth},
      {"moe_permute", FitKind::Bandwidth},
      {"moe_unpermute", FitKind::Bandwidth},
      {"nccl_alltoall", FitKind::Collective, CollectiveOp::AllToAll},
      {"nccl_allreduce", FitKind::Collective, CollectiveOp::AllReduce},
      {"nccl_allgather", FitKind::Collective, CollectiveOp::AllGather},
      {"nccl_reducescatter", FitKind::Collective, CollectiveOp::ReduceScatter},
      {"gemm_bf16", FitKind::Gemm, {}, GemmPrecision::BF16},
      {"gemm_fp8", FitKind::Gemm, {}, GemmPrecision::FP8},
  };
  return classes;
}

const KernelClass* find_kernel_class(std::string_view family) {
  if (family.starts_with("BM_")) family.remove_prefix(3);
  const auto& all = kernel_classes();
  const auto it = std::find_if(all.begin(), all.end(),
                               [&](const KernelClass& c) { return c.name == family; });
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

int alpha_steps(CollectiveOp op, int ranks) {
  return op == CollectiveOp::AllReduce ? 2 * (ranks - 1) : ranks - 1;
}

}  // namespace mhcsim::calib
