#include "replica.h"

#include <algorithm>
#include <cmath>

namespace mhcsim::serving::detail {

Replica::Replica(int64_t kv_blocks, int64_t block_tokens, const SchedulerConfig& config, int64_t max_batch_seqs,
                 bool prefill_only)
    : total_blocks_(kv_blocks),
      free_blocks_(kv_blocks),
      block_tokens_(block_tokens),
      watermark_blocks_(static_cast<int64_t>(std::ceil(config.kv_watermark * static_cast<double>(kv_blocks)))),
      config_(config),
      max_batch_seqs_(max_batch_seqs),
      prefill_only_(prefill_only) {}

bool Replica::grow(Live& r, int64_t tokens) {
  const int64_t need = blocks_for(tokens) - r.blocks;
  if (need > free_blocks_) return false;
  if (need > 0) {
    free_blocks_ -= need;
    r.blocks += static_cast<int32_t>(need);
  }
  return true;
}

void Replica::preempt_last() {
  Live r = running_.back();
  running_.pop_back();
  prefill_backlog_tokens_ -= tokens_to_prefill(r);
  free_blocks_ += r.blocks;
  r.blocks = 0;
  r.cached = 0;
  r.scheduled = 0;
  r.prompt = r.input + r.generated;
  prefill_backlog_tokens_ += tokens_to_prefill(r);
  waiting_.push_front(r);
  ++preemptions_;
}

// KV that arrived from a prefill replica joins the running set as soon as its blocks fit, to
// decode in this very iteration.
void Replica::admit_decode_ready() {
  while (!waiting_.empty() && waiting_.front().cached > 0 && static_cast<int64_t>(running_.size()) < max_batch_seqs_) {
    Live& r = waiting_.front();
    const int64_t reserve = running_.empty() ? 0 : watermark_blocks_;
    if (blocks_for(r.cached) + reserve > free_blocks_) break;
    grow(r, r.cached);
    running_.push_back(r);
    waiting_.pop_front();
  }
}

void Replica::schedule_decodes(cost::BatchShape& b, int64_t& budget) {
  for (size_t i = 0; i < running_.size(); ++i) {
    if (!running_[i].prefill_done()) continue;
    // The new token's KV needs room: take it from the most recent arrivals, this one last.
    while (!grow(running_[i], running_[i].cached + 1) && running_.size() > i + 1) preempt_last();
    Live& r = running_[i];
    if (!grow(r, r.cached + 1)) {
      preempt_last();  // r itself: alone it still does not fit (cannot happen below capacity)
      break;
    }
    r.scheduled = 1;
    b.decode_seqs += 1;
    b.decode_context_tokens += r.cached + 1;
    b.sampled_seqs += 1;
    --budget;
  }
}

void Replica::schedule_chunk(Live& r, int64_t chunk, cost::BatchShape& b, int64_t& budget) {
  const double start = r.cached, c = static_cast<double>(chunk);
  r.scheduled = static_cast<int32_t>(chunk);
  b.prefill_tokens += c;
  // Causal: the chunk's i-th token attends to the cached tokens and i earlier chunk tokens.
  b.prefill_attended_tokens += c * start + c * (c + 1) / 2;
  if (r.cached + chunk >= r.prompt) b.sampled_seqs += 1;
  budget -= chunk;
}

void Replica::schedule_prefills(cost::BatchShape& b, int64_t& budget) {
  const bool chunked = config_.chunked_prefill;
  // Prompts already started continue first (chunked prefill).
  for (auto& r : running_) {
    if (budget <= 0) return;
    if (r.prefill_done() || r.scheduled > 0) continue;
    int64_t chunk = std::min<int64_t>(budget, r.prompt - r.cached);
    chunk = std::min(chunk, (r.blocks + free_blocks_) * block_tokens_ - r.cached);
    if (chunk <= 0) continue;
    grow(r, r.cached + chunk);
    schedule_chunk(r, chunk, b, budget);
  }
  // Then new prompts, first come first served; the queue head waits rather than being overtaken.
  while (!waiting_.empty() && budget > 0 && static_cast<int64_t>(running_.size()) < max_batch_seqs_) {
    Live& r = waiting_.front();
    if (r.cached > 0) break;  // KV from a prefill replica: admitted before the decodes
    // The prefix cache holds the prompt's first tokens (never all: the last is computed to
    // sample the first output token).
    const int64_t hit = std::min<int64_t>(r.hit, r.prompt - 1);
    const int64_t rest = r.prompt - hit;
    int64_t chunk = std::min<int64_t>(budget, rest);
    if (!chunked && chunk < rest) {
      if (b.tokens() > 0) break;
      chunk = rest;  // too long for the budget: runs alone, whole
    }
    const int64_t reserve = running_.empty() ? 0 : watermark_blocks_;
    const int64_t room = (free_blocks_ - reserve) * block_tokens_ - hit;
    if (room < chunk) {
      if (!chunked || room <= 0) break;
      chunk = room;
    }
    r.cached = static_cast<int32_t>(hit);
    grow(r, hit + chunk);
    schedule_chunk(r, chunk, b, budget);
    running_.push_back(r);
    waiting_.pop_front();
  }
}

cost::BatchShape Replica::form_batch() {
  for (;;) {
    cost::BatchShape b;
    int64_t budget = config_.token_budget;
    if (!prefill_only_) {
      admit_decode_ready();
      schedule_decodes(b, budget);
    }
    schedule_prefills(b, budget);
    // Started prompts that together hold every block and none can grow: give the latest one's
    // back (each request alone fits, so this ends).
    if (b.tokens() > 0 || running_.empty()) return b;
    preempt_last();
  }
}

void Replica::finish_iteration(double now, std::vector<Live>& done, std::vector<Live>& handoff) {
  size_t kept = 0;
  for (size_t i = 0; i < running_.size(); ++i) {
    Live& r = running_[i];
    if (r.scheduled > 0) {
      const bool prefilling = !r.prefill_done();
      if (prefilling) prefill_backlog_tokens_ -= r.scheduled;
      r.cached += r.scheduled;
      r.scheduled = 0;
      if (r.prefill_done()) {  // a decode step, or the prompt's last chunk: one token out
        ++r.generated;
        if (r.first_token_s < 0) r.first_token_s = now;
        if (r.generated >= r.output) {
          free_blocks_ += r.blocks;
          r.blocks = 0;
          done.push_back(r);
          continue;
        }
        if (prefill_only_ && prefilling) {
          handoff.push_back(r);
          continue;
        }
      }
    }
    if (kept != i) running_[kept] = r;
    ++kept;
  }
  running_.resize(kept);
}

}  // namespace mhcsim::serving::detail
