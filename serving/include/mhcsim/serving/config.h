#pragma once
// How the service is run: replicas, routing, the per-replica scheduler, the prefix cache, the
// SLOs, prefill/decode disaggregation. The model and the hardware come from the scenario; these
// are the serving engine's knobs (vLLM / SGLang options of the same names).
#include <cstdint>
#include <iosfwd>

namespace mhcsim::serving {

enum class RouterKind { RoundRobin, LeastLoaded };

struct SchedulerConfig {
  // Tokens one iteration may compute: decode tokens + prefill chunk tokens (Sarathi-Serve's
  // token budget, vLLM's max_num_batched_tokens). 2048: vLLM's chunked-prefill default.
  int64_t token_budget = 2048;
  // Sequences per iteration (vLLM's max_num_seqs); 0 = the scenario's workload.batch_seqs.
  int64_t max_batch_seqs = 0;
  // Prompts are split into chunks that fill the budget next to the decodes; off = a prompt
  // is admitted only when it fits the budget whole (a longer one still runs, alone).
  bool chunked_prefill = true;
  // Free KV blocks kept when admitting new work while other requests run (vLLM's 1% watermark),
  // so that running sequences can grow before anything is preempted.
  double kv_watermark = 0.01;
};

// Replicas one pool may simulate: each holds its queue and batch; 65,536 is past any one
// router's fleet (the capacity answer scales copies of the simulated pools, not this).
constexpr int64_t kMaxReplicas = 65536;

struct ServingConfig {
  int64_t replicas = 1;          // colocated replicas, or the decode pool when disaggregated
  int64_t prefill_replicas = 0;  // > 0: a separate prefill pool; KV moves over the network
  RouterKind router = RouterKind::LeastLoaded;
  SchedulerConfig scheduler;
  SchedulerConfig prefill_scheduler;  // the prefill pool's (disaggregated only)
  double prefix_hit_ratio = 0;        // share of each prompt served from the prefix cache: it takes
                                      // KV blocks and is attended, but is not computed
  double slo_ttft_s = 0;              // goodput: time to first token at most this (0 = no SLO)
  double slo_tpot_s = 0;              // and time per output token at most this (0 = no SLO)
  std::ostream* trace = nullptr;      // Chrome trace of iterations (one pid per replica)
  int64_t trace_replicas = 16;        // replicas traced (the first ones of each pool)
  // The trace stops (the run goes on) before an iteration's events would pass this; its stop
  // marker and closing bracket add ~100 bytes. ~7 KB per request at the shipped scenario, so a
  // billion-request run would otherwise fill the disk; Perfetto's UI opens traces up to ~1-2 GB.
  int64_t trace_max_bytes = int64_t{1} << 30;
};

}  // namespace mhcsim::serving
