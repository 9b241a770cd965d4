#pragma once
// The interface between what is simulated and the engine (the role ASTRA-sim's
// AstraNetworkAPI plays): a flat graph of ops, each bound to one in-order stream of one rank,
// with a duration and dependencies. Schedules and prices become such a graph; the engine
// knows nothing else. Flat vectors and integer ids only, so a step of thousands of ranks
// stays a few arrays.
#include <cstdint>
#include <string_view>
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
inline bool is_compute(StreamKind k) {
  return k == StreamKind::Compute || k == StreamKind::HighPriority;
}

// What an op is, for the trace and the metrics.
enum class UnitKind : uint8_t { Forward, Backward, BackwardInput, Weight, Transfer,
                                Sync };  // Sync: zero-length commit (launch / wait) op
enum class Piece : uint8_t {
  Whole,          // the unit in one piece (no all-to-all to overlap)
  Attention,      // attention (forward, or its gradient in a backward unit)
  Dispatch,       // dispatch all-to-all (forward) / dispatch gradient (backward)
  Mlp,
  Combine,        // combine all-to-all (forward) / combine gradient (backward)
  MhcPost,        // mHC F_post,res on the high-priority stream
  Send,           // stage-boundary transfer
};
std::string_view to_string(UnitKind k);
std::string_view to_string(Piece p);

struct OpLabel {
  UnitKind unit = UnitKind::Forward;
  Piece piece = Piece::Whole;
  int32_t mb = 0;
  int32_t hop = 0;
};

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
  double activation_bytes_per_chunk = 0;

  int32_t op_count() const { return static_cast<int32_t>(stream.size()); }
  int32_t rank_of_stream(int32_t s) const { return s / kStreamsPerRank; }
  StreamKind kind_of_stream(int32_t s) const {
    return static_cast<StreamKind>(s % kStreamsPerRank);
  }
};

OpGraph build_op_graph(const Program& program, const PhasePrices& prices);

}  // namespace mhcsim::sim
