#pragma once
// Invariants every simulated timeline must satisfy, shared by the schedule tests.
#include <catch2/catch.hpp>

#include <algorithm>
#include <limits>
#include <vector>

#include "mhcsim/sim/simulate.h"

namespace mhcsim::sim::test {

// No stream ever runs two ops at once: in stream order, each op starts after the previous
// one ended (and no op ends before it starts).
inline void check_streams_serial(const Simulation& s) {
  const auto& g = s.graph;
  const auto& t = s.timeline;
  for (int32_t st = 0; st < g.streams; ++st) {
    double free_at = 0;
    for (int32_t i = g.stream_begin[static_cast<size_t>(st)]; i < g.stream_begin[static_cast<size_t>(st) + 1]; ++i) {
      const auto op = static_cast<size_t>(g.stream_ops[static_cast<size_t>(i)]);
      REQUIRE(t.start_seconds[op] >= free_at);
      REQUIRE(t.end_seconds[op] >= t.start_seconds[op]);
      free_at = t.end_seconds[op];
    }
  }
}

// Every micro-batch's forward on a stage ends before its backward there starts, and its W
// starts after that backward ends.
inline void check_forward_before_backward(const Simulation& s) {
  const auto& g = s.graph;
  const auto& t = s.timeline;
  const auto units = static_cast<size_t>(g.layout.micro_batches) * static_cast<size_t>(g.layout.hops);
  constexpr double inf = std::numeric_limits<double>::infinity();
  std::vector<double> f_end(units, -inf), b_start(units, inf), b_end(units, -inf), w_start(units, inf);
  for (int32_t op = 0; op < g.op_count(); ++op) {
    const auto& l = g.label[static_cast<size_t>(op)];
    const auto u = static_cast<size_t>(l.mb) * static_cast<size_t>(g.layout.hops) + static_cast<size_t>(l.hop);
    const double a = t.start_seconds[static_cast<size_t>(op)], e = t.end_seconds[static_cast<size_t>(op)];
    switch (l.unit) {
      case UnitKind::Forward:
        f_end[u] = std::max(f_end[u], e);
        break;
      case UnitKind::Backward:
      case UnitKind::BackwardInput:
        b_start[u] = std::min(b_start[u], a);
        b_end[u] = std::max(b_end[u], e);
        break;
      case UnitKind::Weight:
        w_start[u] = std::min(w_start[u], a);
        break;
      default:
        break;
    }
  }
  for (size_t u = 0; u < units; ++u) {
    REQUIRE(f_end[u] > -inf);
    REQUIRE(b_start[u] < inf);
    REQUIRE(f_end[u] <= b_start[u]);
    if (w_start[u] < inf) REQUIRE(b_end[u] <= w_start[u]);
  }
}

inline void check_invariants(const Simulation& s) {
  check_streams_serial(s);
  check_forward_before_backward(s);
}

inline ScheduleSpec make_spec(Schedule kind, int32_t ranks, int32_t micro_batches, int32_t virtual_stages = 1) {
  ScheduleSpec s;
  s.kind = kind;
  s.ranks = ranks;
  s.micro_batches = micro_batches;
  s.virtual_stages = virtual_stages;
  return s;
}

// DeepSeek-V3-like chunk with EP all-to-all, mHC post kernel and a non-free PP link: enough
// structure for the invariants to be exercised on every stream.
inline PhasePrices moe_prices() {
  PhasePrices p;
  p.attn_forward_seconds = 3;
  p.mlp_forward_seconds = 4;
  p.mhc_post_forward_seconds = 1;
  p.dispatch_seconds = 3;
  p.combine_seconds = 5;
  p.attn_backward_input_seconds = 3;
  p.attn_backward_weight_seconds = 2;
  p.mlp_backward_input_seconds = 4;
  p.mlp_backward_weight_seconds = 4;
  p.pp_send_seconds = 2;
  p.activation_bytes = 1000;
  return p;
}

}  // namespace mhcsim::sim::test
