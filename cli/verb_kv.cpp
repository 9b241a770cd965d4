// `mhcsim kv`: KV cache per token and per sequence, MLA vs GQA/MQA/MHA, and sequences per GPU
// (api/kv.h builds the table).
#include <memory>

#include "common.h"
#include "mhcsim/api/kv.h"
#include "mhcsim/cost/kv_cache.h"
#include "verbs.h"

namespace mhcsim::cli {

void setup_kv(CLI::App& app) {
  struct Options {
    int64_t context = 0;
    int64_t batch = 0;
  };
  auto opts = std::make_shared<Options>();
  auto* cmd = add_scenario_verb(app, "kv", "KV cache size: MLA vs GQA/MQA/MHA, per token, sequence, batch; fit per GPU",
                                [opts](const Scenario& s, const Output& out) {
                                  auto inputs = api::scenario_inputs(s);
                                  inputs["context_tokens"] = opts->context > 0 ? opts->context : s.workload.context_len;
                                  inputs["batch_seqs"] = opts->batch > 0 ? opts->batch : s.workload.batch_seqs;
                                  inputs["kv_cache_dtype"] = to_string(s.precision.kv_cache);
                                  inputs["kv_block_tokens"] = s.workload.kv_block_tokens;
                                  print_table(out, api::kv_table(s, opts->context, opts->batch), std::move(inputs));
                                  if (out.json) return;
                                  std::cout
                                      << "# seqs/replica: sequences whose KV fits one replica of TP x PP = "
                                      << s.parallel.tp * s.parallel.pp
                                      << " GPUs (TP splits the KV heads, PP the layers), after each GPU's weights ("
                                      << to_string(s.precision.weights) << ") and a "
                                      << cost::kServeActivationReserveFraction * 100 << "% activation reserve\n";
                                });
  cmd->add_option("--context", opts->context, "Tokens per sequence (default: workload.context_len)")
      ->check(key_flag("workload.context_len"));
  cmd->add_option("--batch", opts->batch, "Sequences (default: workload.batch_seqs)")
      ->check(key_flag("workload.batch_seqs"));
}

}  // namespace mhcsim::cli
