#include "mhcsim/sweep/feasibility.h"

#include <fmt/format.h>

#include "mhcsim/cost/kv_cache.h"
#include "mhcsim/cost/memory.h"
#include "mhcsim/units.h"

namespace mhcsim::sweep {

Capacity capacity(const Scenario& s) {
  Capacity c;
  if (s.workload.mode == WorkloadMode::Serve) {
    const auto fit = cost::kv_fit(s, s.workload.context_len);
    c.kv_sequences_per_replica = fit.sequences;
    c.memory_per_gpu_bytes =
        fit.weight_bytes + fit.reserve_bytes + static_cast<double>(s.workload.batch_seqs) * fit.bytes_per_sequence;
    if (fit.sequences < s.workload.batch_seqs)
      c.infeasible_reason = fmt::format("KV cache: {} sequences of {} tokens fit per GPU, batch needs {}",
                                        fit.sequences, s.workload.context_len, s.workload.batch_seqs);
    return c;
  }
  const auto mem = cost::training_memory(s);
  c.memory_per_gpu_bytes = mem.total_bytes();
  if (!mem.fits())
    c.infeasible_reason = fmt::format("out of memory: {:.1f} GiB per GPU > {:.1f} GiB HBM", mem.total_bytes() / kGiB,
                                      mem.hbm_bytes / kGiB);
  return c;
}

}  // namespace mhcsim::sweep
