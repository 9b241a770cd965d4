#include <fmt/format.h>

#include "mhcsim/sim/simulate.h"
#include "mhcsim/traces/compare.h"

namespace mhcsim::traces {
namespace {

OpClass class_of(sim::Piece p) {
  switch (p) {
    case sim::Piece::Attention:
      return OpClass::Attention;
    case sim::Piece::Dispatch:
      return OpClass::Dispatch;
    case sim::Piece::Mlp:
      return OpClass::Mlp;
    case sim::Piece::Combine:
      return OpClass::Combine;
    case sim::Piece::MhcPost:
      return OpClass::Mhc;
    case sim::Piece::Send:
      return OpClass::PpComm;
    case sim::Piece::Whole:
      break;
  }
  return OpClass::OtherCompute;
}

Direction direction_of(sim::UnitKind u) {
  switch (u) {
    case sim::UnitKind::Forward:
      return Direction::Forward;
    case sim::UnitKind::Backward:
    case sim::UnitKind::BackwardInput:
      return Direction::Backward;
    case sim::UnitKind::Weight:
      return Direction::WeightGrad;
    default:
      return Direction::Unknown;
  }
}

}  // namespace

KernelTimeline from_simulation(const sim::Simulation& s) {
  const sim::OpGraph& g = s.graph;
  KernelTimeline t;
  t.ranks = g.layout.ranks;
  for (int32_t id = 0; id < g.streams; ++id)
    t.streams.push_back(
        {g.rank_of_stream(id), fmt::format("rank {} {}", g.rank_of_stream(id), sim::to_string(g.kind_of_stream(id)))});
  for (int32_t op = 0; op < g.op_count(); ++op) {
    const auto o = static_cast<size_t>(op);
    if (g.label[o].unit == sim::UnitKind::Sync) continue;  // zero-length markers, not kernels
    // The DP gradient sync is communication, as its NCCL kernels are in a measured trace.
    const OpClass c = g.label[o].unit == sim::UnitKind::GradSync ? OpClass::OtherComm : class_of(g.label[o].piece);
    t.spans.push_back({s.timeline.start_seconds[o], s.timeline.end_seconds[o], g.stream[o], kNoName, c,
                       direction_of(g.label[o].unit)});
  }
  return t;
}

}  // namespace mhcsim::traces
