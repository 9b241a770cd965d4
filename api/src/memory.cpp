#include "mhcsim/api/memory.h"

#include "mhcsim/cost/kv_cache.h"
#include "mhcsim/cost/memory.h"
#include "mhcsim/units.h"

namespace mhcsim::api {

namespace {
std::vector<reports::Quantity> training_quantities(const Scenario& s) {
  const auto m = cost::training_memory(s);
  return {{"pipeline_rank", "pipeline rank (the fullest)", m.pipeline_rank, ""},
          {"rank_parameters", "parameters on this GPU", m.parameters.total(), "B params", 1e-9, 3},
          {"zero_stage", "ZeRO stage", s.parallel.zero_stage, ""},
          {"weight_bytes", "weights", m.weight_bytes, "GiB", 1.0 / kGiB, 2},
          {"grad_bytes", "gradients", m.grad_bytes, "GiB", 1.0 / kGiB, 2},
          {"master_weight_bytes", "master weights", m.master_weight_bytes, "GiB", 1.0 / kGiB, 2},
          {"optimizer_bytes", "optimizer states (Adam m, v)", m.optimizer_bytes, "GiB", 1.0 / kGiB, 2},
          {"activation_chunks", "activation chunks in flight", m.activation_chunks, "chunks"},
          {"activation_bytes", "activations", m.activation_bytes, "GiB", 1.0 / kGiB, 2},
          {"mhc_recompute_block", "mHC recompute block L_r", m.recompute_block, "layers"},
          {"mhc_recompute_saved_bytes", "saved by mHC recompute", m.mhc_recompute_saved_bytes, "GiB", 1.0 / kGiB, 2},
          {"total_bytes", "total", m.total_bytes(), "GiB", 1.0 / kGiB, 2},
          {"hbm_bytes", "HBM", m.hbm_bytes, "GiB", 1.0 / kGiB, 2},
          {"fits", "fits", m.fits(), ""}};
}

std::vector<reports::Quantity> serving_quantities(const Scenario& s) {
  const auto f = cost::kv_fit(s, s.workload.context_len);
  return {{"weight_bytes", "weights", f.weight_bytes, "GiB", 1.0 / kGiB, 2},
          {"reserve_bytes", "activation reserve", f.reserve_bytes, "GiB", 1.0 / kGiB, 2},
          {"kv_budget_bytes", "KV cache budget", f.kv_budget_bytes, "GiB", 1.0 / kGiB, 2},
          {"kv_bytes_per_sequence", "KV per sequence (this GPU)", f.bytes_per_sequence, "MiB", 1.0 / kMiB, 2},
          {"sequences", "sequences that fit", f.sequences, ""},
          {"hbm_bytes", "HBM", f.hbm_bytes, "GiB", 1.0 / kGiB, 2}};
}
}  // namespace

std::vector<reports::Quantity> memory_quantities(const Scenario& s) {
  return s.workload.mode == WorkloadMode::Train ? training_quantities(s) : serving_quantities(s);
}

}  // namespace mhcsim::api
