#pragma once
// One replica's scheduler and paged KV cache: forms one batch per iteration (decodes first,
// then prefill chunks into the rest of the token budget, FCFS) and applies its progress when the
// iteration ends. Preemption is vLLM's recompute: when a running sequence needs a block and none
// is free, the most recently admitted sequence gives all of its blocks back and returns to the
// front of the queue, to prefill its prompt and generated tokens again.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "live_request.h"
#include "mhcsim/cost/serving_step.h"
#include "mhcsim/serving/config.h"

namespace mhcsim::serving::detail {

class Replica {
 public:
  Replica(int64_t kv_blocks, int64_t block_tokens, const SchedulerConfig& config, int64_t max_batch_seqs,
          bool prefill_only);

  // A new request, or one whose KV arrived from a prefill replica (cached > 0, blocks == 0).
  void enqueue(const Live& r) {
    waiting_.push_back(r);
    prefill_backlog_tokens_ += tokens_to_prefill(r);
  }
  // The next iteration's batch; tokens() == 0 when there is nothing to run.
  cost::BatchShape form_batch();
  // The iteration ended at `now`: tokens are emitted; finished requests go to `done`, and on a
  // prefill-only replica prompts that finished prefill go to `handoff` with their blocks still
  // held (give them back with release() once the KV has left).
  void finish_iteration(double now, std::vector<Live>& done, std::vector<Live>& handoff);
  void release(int64_t blocks) { free_blocks_ += blocks; }

  // Held (queued + running) and on their way (KV in transfer to this replica).
  int64_t requests() const { return static_cast<int64_t>(waiting_.size() + running_.size()) + incoming_; }
  void expect(int64_t change) { incoming_ += change; }
  // Prompt tokens still to compute, queued and started: what a new prompt waits behind.
  int64_t prefill_backlog_tokens() const { return prefill_backlog_tokens_; }
  int64_t used_blocks() const { return total_blocks_ - free_blocks_; }
  int64_t total_blocks() const { return total_blocks_; }
  int64_t preemptions() const { return preemptions_; }
  bool busy = false;  // an iteration is in flight

 private:
  int64_t blocks_for(int64_t tokens) const { return (tokens + block_tokens_ - 1) / block_tokens_; }
  // Prompt tokens a request still has to compute: all but those cached and, before admission,
  // its prefix-cache hit (never the last token); 0 once its prefill is done or its KV arrived.
  static int64_t tokens_to_prefill(const Live& r) {
    return std::max(0, r.prompt - std::max(r.cached, std::min(r.hit, r.prompt - 1)));
  }
  bool grow(Live& r, int64_t tokens);  // blocks for `tokens` cached tokens; false if short
  void preempt_last();
  void admit_decode_ready();
  void schedule_decodes(cost::BatchShape& b, int64_t& budget);
  void schedule_prefills(cost::BatchShape& b, int64_t& budget);
  void schedule_chunk(Live& r, int64_t chunk, cost::BatchShape& b, int64_t& budget);

  int64_t total_blocks_, free_blocks_, block_tokens_;
  int64_t watermark_blocks_;
  SchedulerConfig config_;
  int64_t max_batch_seqs_;
  bool prefill_only_;
  std::deque<Live> waiting_;
  std::vector<Live> running_;  // in admission order: preemption takes from the back
  int64_t preemptions_ = 0;
  int64_t prefill_backlog_tokens_ = 0;
  int64_t incoming_ = 0;
};

}  // namespace mhcsim::serving::detail
