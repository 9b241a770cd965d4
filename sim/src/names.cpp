#include "mhcsim/sim/op_graph.h"

namespace mhcsim::sim {

std::string_view to_string(StreamKind k) {
  switch (k) {
    case StreamKind::Compute:
      return "compute";
    case StreamKind::HighPriority:
      return "compute (high priority)";
    case StreamKind::EpAllToAll:
      return "EP all-to-all";
    case StreamKind::PpSendNext:
      return "PP send to rank+1";
    case StreamKind::PpSendPrev:
      return "PP send to rank-1";
  }
  return "?";
}

std::string_view to_string(UnitKind k) {
  switch (k) {
    case UnitKind::Forward:
      return "F";
    case UnitKind::Backward:
      return "B";
    case UnitKind::BackwardInput:
      return "B(input)";
    case UnitKind::Weight:
      return "W";
    case UnitKind::Transfer:
      return "send";
    case UnitKind::Sync:
      return "sync";
    case UnitKind::GradSync:
      return "DP grad sync";
  }
  return "?";
}

std::string_view to_string(Piece p) {
  switch (p) {
    case Piece::Whole:
      return "";
    case Piece::Attention:
      return "attn";
    case Piece::Dispatch:
      return "dispatch";
    case Piece::Mlp:
      return "mlp";
    case Piece::Combine:
      return "combine";
    case Piece::MhcPost:
      return "mhc_post";
    case Piece::Send:
      return "";
  }
  return "?";
}

}  // namespace mhcsim::sim
