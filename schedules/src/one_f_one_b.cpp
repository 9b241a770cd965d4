// 1F1B (PipeDream-Flush / Megatron), ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism",
// section 3: 1F1B with B split into input and weight gradients, W deferred) and interleaved
// 1F1B (Megatron-LM forward_backward_pipelining_with_interleaving).
#include <algorithm>

#include "mhcsim/schedules/schedule.h"

namespace mhcsim::schedules {
namespace {

Slot forward(int32_t mb, int32_t hop) { return {SlotKind::Forward, mb, hop, -1, -1}; }

}  // namespace

void append_one_f_one_b(const ScheduleSpec& spec, int32_t rank, bool zero_bubble, std::vector<Slot>& out) {
  const int32_t n = spec.micro_batches;
  const int32_t warmup = std::min(spec.ranks - 1 - rank, n);
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
  // Megatron: groups of p micro-batches go through chunk 0, then chunk 1, ...; when there are
  // exactly p micro-batches every forward runs first.
  const int32_t warmup = spec.micro_batches == p ? total : std::min((p - rank - 1) * 2 + (v - 1) * p, total);
  auto mb_of = [&](int32_t k) { return (k / (p * v)) * p + k % p; };
  auto chunk_of = [&](int32_t k, bool backward) {
    const int32_t c = (k % (p * v)) / p;
    return backward ? v - 1 - c : c;
  };
  auto f = [&](int32_t k) { out.push_back(forward(mb_of(k), chunk_of(k, false) * p + rank)); };
  auto b = [&](int32_t k) { out.push_back({SlotKind::Backward, mb_of(k), chunk_of(k, true) * p + rank, -1, -1}); };
  for (int32_t k = 0; k < warmup; ++k) f(k);
  for (int32_t i = 0; i < total - warmup; ++i) {
    f(warmup + i);
    b(i);
  }
  for (int32_t k = total - warmup; k < total; ++k) b(k);
}

}  // namespace mhcsim::schedules
