// 1F1B (PipeDream-Flush / Megatron), ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism",
// section 3: 1F1B with B split into input and weight gradients, W deferred) and interleaved
// 1F1B (Megatron-LM forward_backward_pipelining_with_interleaving); with spec.combined, Megatron-
// Core's combined 1F1B (combined_1f1b.py): each steady-state F and B run as one F&B slot.
#include <algorithm>

#include "mhcsim/schedules/schedule.h"

namespace mhcsim::schedules {
namespace {

Slot forward(int32_t mb, int32_t hop) { return {SlotKind::Forward, mb, hop, -1, -1}; }

// A steady-state step: F then B, or one F&B slot in combined 1F1B.
void steady_step(const ScheduleSpec& spec, const Slot& f, const Slot& b, std::vector<Slot>& out) {
  if (spec.combined) {
    out.push_back({SlotKind::ForwardBackward, f.mb, f.hop, b.mb, b.hop});
    return;
  }
  out.push_back(f);
  out.push_back(b);
}

}  // namespace

void append_one_f_one_b(const ScheduleSpec& spec, int32_t rank, bool zero_bubble, std::vector<Slot>& out) {
  const int32_t n = spec.micro_batches;
  const int32_t warmup = warmup_forwards(spec, rank);
  const SlotKind b_kind = zero_bubble ? SlotKind::BackwardInput : SlotKind::Backward;
  // ZB-H1: rank r keeps r W's pending (each B is followed by the W of the micro-batch r places
  // earlier), so the later ranks, whose last B comes earliest, fill their cooldown with W's.
  const int32_t w_lag = rank;
  int32_t next_w = 0;
  auto backward = [&](int32_t mb) {
    out.push_back({b_kind, mb, rank, -1, -1});
    if (zero_bubble && mb >= w_lag) out.push_back({SlotKind::Weight, next_w++, rank, -1, -1});
  };
  for (int32_t i = 0; i < warmup; ++i) out.push_back(forward(i, rank));
  for (int32_t i = 0; i < n - warmup; ++i) {
    if (spec.combined) {  // validate() keeps ZB-H1 out
      steady_step(spec, forward(warmup + i, rank), {SlotKind::Backward, i, rank, -1, -1}, out);
      continue;
    }
    out.push_back(forward(warmup + i, rank));
    backward(i);
  }
  for (int32_t i = n - warmup; i < n; ++i) backward(i);
  while (zero_bubble && next_w < n) out.push_back({SlotKind::Weight, next_w++, rank, -1, -1});
}

void append_interleaved(const ScheduleSpec& spec, int32_t rank, std::vector<Slot>& out) {
  const int32_t p = spec.ranks;
  const int32_t v = spec.virtual_stages;
  const int32_t total = spec.micro_batches * v;
  const int32_t warmup = warmup_forwards(spec, rank);
  // Megatron: groups of p micro-batches go through chunk 0, then chunk 1, ...
  auto mb_of = [&](int32_t k) { return (k / (p * v)) * p + k % p; };
  auto chunk_of = [&](int32_t k, bool backward) {
    const int32_t c = (k % (p * v)) / p;
    return backward ? v - 1 - c : c;
  };
  auto f = [&](int32_t k) { return forward(mb_of(k), chunk_of(k, false) * p + rank); };
  auto b = [&](int32_t k) { return Slot{SlotKind::Backward, mb_of(k), chunk_of(k, true) * p + rank, -1, -1}; };
  for (int32_t k = 0; k < warmup; ++k) out.push_back(f(k));
  for (int32_t i = 0; i < total - warmup; ++i) steady_step(spec, f(warmup + i), b(i), out);
  for (int32_t k = total - warmup; k < total; ++k) out.push_back(b(k));
}

}  // namespace mhcsim::schedules
