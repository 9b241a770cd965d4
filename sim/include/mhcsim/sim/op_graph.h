#pragma once
// The interface between what is simulated and the engine (the role ASTRA-sim's
// AstraNetworkAPI plays): a flat graph of ops, each bound to one in-order stream of one rank,
// with a duration and dependencies. Schedules and prices become such a graph; the engine
// knows nothing else. Flat vectors and integer ids only, so a step of thousands of ranks
// stays a few arrays.
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "mhcsim/sim/prices.h"
#include "mhcsim/sim/schedule.h"

namespace mhcsim::sim {

enum class StreamKind : uint8_t {
  Compute,       // main compute stream
  HighPriority,  // high-priority compute stream (mHC F_post,res of MLP layers)
  EpAllToAll,    // MoE dispatch / combine
  PpSendNext,    // link to rank + 1 (stage-boundary activations / gradients)
  PpSendPrev,    // link to rank - 1
};
inline constexpr int32_t kStreamsPerRank = 5;
std::string_view to_string(StreamKind k);
inline bool is_compute(StreamKind k) { return k == StreamKind::Compute || k == StreamKind::HighPriority; }

// What an op is, for the trace and the metrics.
enum class UnitKind : uint8_t {
  Forward,
  Backward,
  BackwardInput,
  Weight,
  Transfer,
  Sync,      // zero-length commit (launch / wait) op
  GradSync,  // the rank's exposed DP gradient sync after its last op
};
enum class Piece : uint8_t {
  Whole,      // the unit in one piece (no all-to-all to overlap)
  Attention,  // attention (forward, or its gradient in a backward unit)
  Dispatch,   // dispatch all-to-all (forward) / dispatch gradient (backward)
  Mlp,
  Combine,  // combine all-to-all (forward) / combine gradient (backward)
  MhcPost,  // mHC F_post,res on the high-priority stream
  Send,     // stage-boundary transfer
};
std::string_view to_string(UnitKind k);
std::string_view to_string(Piece p);

struct OpLabel {
  UnitKind unit = UnitKind::Forward;
  Piece piece = Piece::Whole;
  bool serialised = false;  // the part of an all-to-all that parallel.overlap does not hide,
                            // run on the compute stream (which waits for it)
  int32_t mb = 0;
  int32_t hop = 0;  // = the pipeline stage (chunk) the unit runs, 0 = first layers
};

// What the metrics count as communication wherever it runs: the all-to-all pieces (also their
// serialised part on the compute stream), stage-boundary transfers and the gradient sync.
// Everything else that takes time is compute (sim/README.md).
inline bool is_communication(const OpLabel& l) {
  return l.piece == Piece::Dispatch || l.piece == Piece::Combine || l.piece == Piece::Send ||
         l.unit == UnitKind::GradSync;
}

struct OpGraph {
  Layout layout;
  int32_t streams = 0;  // ranks x kStreamsPerRank; stream id = rank * kStreamsPerRank + kind

  // Per op.
  std::vector<int32_t> stream;
  std::vector<double> duration_seconds;
  std::vector<OpLabel> label;
  std::vector<int32_t> pred_count;
  std::vector<int32_t> succ_begin;  // CSR: successors of op i are succ[succ_begin[i] ..)
  std::vector<int32_t> succ;
  // Per stream, the order in which it runs its ops: the order they were created in, so each
  // stream's list is increasing in op id (the engine relies on that and checks it).
  std::vector<int32_t> stream_begin;
  std::vector<int32_t> stream_ops;

  // Activation lifetime per (micro-batch, hop): from the start of its forward's first op to
  // the end of its backward's (input-gradient) last op. Index mb * hops + hop.
  std::vector<int32_t> forward_first_op;
  std::vector<int32_t> backward_last_op;
  std::vector<double> activation_bytes_per_stage;  // per hop: what one micro-batch keeps there

  // Each stage-boundary transfer and the first op of the unit that consumes it on the other
  // rank (the trace draws them as flow arrows).
  std::vector<std::pair<int32_t, int32_t>> transfer_consumer;

  int32_t op_count() const { return static_cast<int32_t>(stream.size()); }
  int32_t rank_of_stream(int32_t s) const { return s / kStreamsPerRank; }
  StreamKind kind_of_stream(int32_t s) const { return static_cast<StreamKind>(s % kStreamsPerRank); }
};

OpGraph build_op_graph(const Program& program, const StagePrices& prices);
// Every stage at the same price, no gradient sync.
OpGraph build_op_graph(const Program& program, const PhasePrices& prices);

}  // namespace mhcsim::sim
