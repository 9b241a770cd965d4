#pragma once
// Scenarios the serving tests share: the shipped DeepSeek-V3 decode scenario (one GPU per
// replica in an EP144 attention-DP group) and a dense GQA model on one TP-8 node.
#include <string>
#include <vector>

#include "mhcsim/scenarios/load.h"

namespace mhcsim::test {

inline Scenario deepseek_serve(const std::vector<scenarios::Override>& o = {}) {
  return scenarios::load_scenario(std::string(MHCSIM_SOURCE_DIR) + "/scenarios/deepseek_v3_serve.toml", o);
}

inline Scenario llama_serve(std::vector<scenarios::Override> o = {}) {
  std::vector<scenarios::Override> all{{"workload.mode", "\"serve\""},
                                       {"workload.phase", "\"decode\""},
                                       {"parallel.pp", "1"},
                                       {"parallel.schedule", "\"1f1b\""},
                                       {"parallel.virtual_stages", "1"},
                                       {"parallel.zero_stage", "0"},
                                       {"hardware.gpus", "8"},
                                       {"workload.batch_seqs", "64"},
                                       {"workload.context_len", "2048"}};
  all.insert(all.end(), o.begin(), o.end());
  return scenarios::load_scenario(std::string(MHCSIM_SOURCE_DIR) + "/scenarios/llama3_70b_gqa.toml", all);
}

}  // namespace mhcsim::test
