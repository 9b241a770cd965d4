#include "mhcsim/api/traffic.h"

#include <string>

#include "mhcsim/cost/memory.h"
#include "mhcsim/cost/mhc_traffic.h"
#include "mhcsim/units.h"

namespace mhcsim::api {

Traffic traffic(const Scenario& scenario, int64_t n_option) {
  Scenario s = scenario;
  auto& m = s.model;
  if (n_option > 0) {
    m.mhc_n = n_option;
    if (m.residual == ResidualKind::Residual && n_option > 1) m.residual = ResidualKind::MHC;
  }
  const int64_t n = m.mhc_n, c = m.hidden;
  const DType act = s.precision.activations;
  reports::Table t("forward traffic per token per mHC layer, n = " + std::to_string(n) + ", C = " + std::to_string(c) +
                       " (streams " + std::string(to_string(act)) + ", coefficients fp32)",
                   {{"section", "section"},
                    {"operation", "operation"},
                    {"read_elems", "read (elems)", 0},
                    {"write_elems", "write (elems)", 0},
                    {"read_bytes", "read (KB)", 2, 1e-3},
                    {"write_bytes", "write (KB)", 2, 1e-3}});
  // Three sections, each ending in its own total where it has several rows: the paper's Table 2
  // (mHC unfused), the plain residual it replaces, and mHC with F_post,res fused (sec. 4.3.1).
  const auto add = [&](const char* section, const cost::TrafficRow& r) {
    const auto b = cost::traffic_bytes(r, c, 1.0, act);
    t.add_row(
        {std::string(section), r.operation, r.read.elements(c), r.write.elements(c), b.read_bytes, b.write_bytes});
  };
  for (const auto& r : cost::mhc_table2(n)) add("mHC unfused (Table 2)", r);
  add("plain residual", cost::residual_merge_row());
  add("mHC fused (4.3.1)", cost::mhc_post_res_fused_row(n));
  add("mHC fused (4.3.1)", cost::residual_forward_row(ResidualKind::MHC, n, true));
  // In double: the product of four in-range integers can pass int64 (2^24 x 2^20 x 2^20 x 2^32).
  const double tokens = static_cast<double>(s.parallel.dp) * static_cast<double>(s.parallel.micro_batches) *
                        static_cast<double>(s.workload.micro_batch_seqs) * static_cast<double>(s.workload.seq_len);
  const auto unfused = cost::residual_traffic_per_step(m, s.precision, false, false, tokens);
  const auto fused = cost::residual_traffic_per_step(m, s.precision, true, s.parallel.recompute_mhc, tokens);
  const auto mem = cost::training_memory(s);
  return {std::move(t),
          {{"step_tokens", "tokens per step", tokens, "tokens", 1.0, 0},
           {"unfused_step_bytes", "step traffic, unfused, no recompute", unfused.total_bytes(), "TB", 1e-12, 2},
           {"fused_step_bytes", "step traffic, fused (+ recompute if on)", fused.total_bytes(), "TB", 1e-12, 2},
           {"fused_recompute_step_bytes", "of which recompute", fused.recompute.total(), "TB", 1e-12, 2},
           {"recompute_block", "recompute block L_r (per stage)", mem.recompute_block, "layers"},
           {"recompute_saved_bytes", "activation memory saved per GPU", mem.mhc_recompute_saved_bytes, "GiB",
            1.0 / kGiB, 2}}};
}

nlohmann::json to_json(const Traffic& t) {
  return {{"rows", t.rows.to_json()}, {"summary", reports::quantities_to_json(t.summary)}};
}

}  // namespace mhcsim::api
