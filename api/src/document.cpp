#include "mhcsim/api/document.h"

#include "mhcsim/version.h"

namespace mhcsim::api {

nlohmann::json document_meta(const DocumentMeta& meta) {
  const auto or_null = [](const std::string& v) { return v.empty() ? nlohmann::json() : nlohmann::json(v); };
  return {{"verb", meta.verb},
          {"schema", "schemas/" + meta.verb + ".schema.json"},
          {"mhcsim_version", kVersion},
          {"scenario", or_null(meta.scenario_name)},
          {"scenario_file", or_null(meta.scenario_file)},
          {"overrides", meta.overrides}};
}

nlohmann::json document(const DocumentMeta& meta, nlohmann::json inputs, nlohmann::json results) {
  return {{"meta", document_meta(meta)}, {"inputs", std::move(inputs)}, {"results", std::move(results)}};
}

nlohmann::json scenario_inputs(const Scenario& s) {
  const auto& p = s.parallel;
  const auto& w = s.workload;
  const bool train = w.mode == WorkloadMode::Train;
  nlohmann::json in = {{"gpu", s.hardware.gpu.name},
                       {"gpus", s.hardware.gpus},
                       {"mode", to_string(w.mode)},
                       {"tokens_per_sequence", train ? w.seq_len : w.context_len},
                       {"sequences_per_batch", train ? w.micro_batch_seqs : w.batch_seqs},
                       {"tp", p.tp},
                       {"pp", p.pp},
                       {"dp", p.dp},
                       {"cp", p.cp},
                       {"ep", p.ep}};
  if (train) {
    in["micro_batches"] = p.micro_batches;
    in["schedule"] = to_string(p.schedule);
    in["virtual_stages"] = p.virtual_stages;
    in["combined_1f1b"] = p.combined_1f1b;
  } else {
    in["phase"] = to_string(w.phase);
  }
  return in;
}

}  // namespace mhcsim::api
