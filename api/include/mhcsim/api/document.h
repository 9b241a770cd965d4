#pragma once
// Every verb's --json is one document of three parts (issue 17), the same for all verbs so that
// a script reads any answer the same way and schemas/<verb>.schema.json can check it:
//   {"meta":    {"verb", "schema", "mhcsim_version", "scenario", "scenario_file", "overrides"},
//    "inputs":  what shaped the answer (GPU, GPU count, tokens, batch, parallel layout, flags),
//    "results": the answer: an object; tables are its "rows" (lists of flat objects, as
//               pandas.DataFrame takes them)}
// Keys carry their unit (_s, _bytes, _gib, _per_s, _tflops); ratios are fractions.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mhcsim/specs.h"

namespace mhcsim::api {

struct DocumentMeta {
  std::string verb;
  std::string scenario_name;  // empty: the answer is not about one scenario
  std::string scenario_file;
  std::vector<std::string> overrides;  // --set KEY=VALUE as given
};

// The meta part; scenario and scenario_file are null when the answer has no scenario.
nlohmann::json document_meta(const DocumentMeta& meta);
nlohmann::json document(const DocumentMeta& meta, nlohmann::json inputs, nlohmann::json results);

// The scenario's figures that shape most answers: GPU, GPU count, mode, tokens per sequence and
// sequences per batch (training: seq_len and micro_batch_seqs; serving: context_len and
// batch_seqs), and the parallel layout. Verbs add their own flags to it.
nlohmann::json scenario_inputs(const Scenario& s);

}  // namespace mhcsim::api
