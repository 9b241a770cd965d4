// Schedule + prices -> op graph. Each slot becomes a short chain of pieces on the rank's
// streams, priced by the stage it runs (the last one carries the LM head); an overlapped F&B
// slot interleaves two chains so that the all-to-all of one micro-batch runs while the other
// computes (DeepSeek-V3 report 3.2, Figure 4), up to parallel.overlap of it: the rest is
// serialised on the compute stream, as the analytic model exposes it. A rank's link runs one
// all-to-all at a time, both parts, in the order the all-to-alls were issued. A stage-boundary
// transfer follows every output that crosses to another rank, and each rank ends with its
// exposed DP gradient sync.
#include "mhcsim/sim/op_graph.h"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <utility>

namespace mhcsim::sim {
namespace {

struct PieceSpec {
  Piece piece = Piece::Whole;
  StreamKind stream = StreamKind::Compute;
  double seconds = 0;
  double serialised_seconds = 0;  // all-to-all only: the part parallel.overlap does not hide
};

struct Chain {
  UnitKind unit = UnitKind::Forward;
  bool a2a = false;  // has all-to-all pieces to overlap with a paired chain
  std::array<PieceSpec, 5> pieces{};
  int n = 0;
  void add(Piece p, StreamKind s, double seconds) { pieces[static_cast<size_t>(n++)] = {p, s, seconds, 0.0}; }
  void add_a2a(Piece p, double seconds, double overlap) {
    pieces[static_cast<size_t>(n++)] = {p, StreamKind::EpAllToAll, overlap * seconds, (1.0 - overlap) * seconds};
  }
};

Chain forward_chain(const PhasePrices& c) {
  Chain ch;
  ch.unit = UnitKind::Forward;
  ch.a2a = c.has_a2a();
  if (ch.a2a) {
    ch.add(Piece::Attention, StreamKind::Compute, c.attn_forward_seconds);
    ch.add_a2a(Piece::Dispatch, c.dispatch_seconds, c.a2a_overlap);
    ch.add(Piece::Mlp, StreamKind::Compute, c.mlp_forward_seconds);
    ch.add_a2a(Piece::Combine, c.combine_seconds, c.a2a_overlap);
  } else {
    ch.add(Piece::Whole, StreamKind::Compute, c.attn_forward_seconds + c.mlp_forward_seconds);
  }
  if (c.mhc_post_forward_seconds > 0) ch.add(Piece::MhcPost, StreamKind::HighPriority, c.mhc_post_forward_seconds);
  return ch;
}

// The backward runs the layers in reverse; the all-to-all gradients mirror the forward ones
// (combine's gradient travels the dispatch route and vice versa) at the same volume.
Chain backward_chain(const PhasePrices& c, bool with_weight) {
  Chain ch;
  ch.unit = with_weight ? UnitKind::Backward : UnitKind::BackwardInput;
  ch.a2a = c.has_a2a();
  const double mlp = c.mlp_backward_input_seconds + (with_weight ? c.mlp_backward_weight_seconds : 0);
  const double attn = c.attn_backward_input_seconds + (with_weight ? c.attn_backward_weight_seconds : 0);
  if (ch.a2a) {
    ch.add_a2a(Piece::Combine, c.combine_seconds, c.a2a_overlap);
    ch.add(Piece::Mlp, StreamKind::Compute, mlp);
    ch.add_a2a(Piece::Dispatch, c.dispatch_seconds, c.a2a_overlap);
    ch.add(Piece::Attention, StreamKind::Compute, attn);
  } else {
    ch.add(Piece::Whole, StreamKind::Compute, mlp + attn);
  }
  return ch;
}

Chain weight_chain(const PhasePrices& c) {
  Chain ch;
  ch.unit = UnitKind::Weight;
  ch.add(Piece::Whole, StreamKind::Compute, c.backward_weight_seconds());
  return ch;
}

// One round of a ForwardForward slot: every forward piece over paired_rounds.
Chain forward_round_chain(PhasePrices p) {
  const double share = 1.0 / std::max(1, p.paired_rounds);
  for (double* x : {&p.attn_forward_seconds, &p.mlp_forward_seconds, &p.mhc_post_forward_seconds, &p.dispatch_seconds,
                    &p.combine_seconds})
    *x *= share;
  return forward_chain(p);
}

// The chains of one stage's price list.
struct StageChains {
  explicit StageChains(const PhasePrices& p)
      : fwd(forward_chain(p)),
        fwd_round(forward_round_chain(p)),
        bwd(backward_chain(p, true)),
        bwd_in(backward_chain(p, false)),
        wgt(weight_chain(p)),
        rounds(std::max(1, p.paired_rounds)) {}
  Chain fwd, fwd_round, bwd, bwd_in, wgt;
  int32_t rounds;
};

constexpr int32_t kNone = -1;

// One unit's chain while its pieces are emitted. The serialised part of an all-to-all waits
// for the unit's next piece (or its end) before it is put on the compute stream, so that in
// an F&B slot the partner's compute placed in between still overlaps the hidden part.
struct Cursor {
  const Chain& ch;
  int32_t mb, hop;
  int next = 0;
  int32_t prev = kNone, first = kNone;
  int serialised = -1;    // piece whose serialised part is still to be emitted
  int32_t link_use = -1;  // that all-to-all's entry in Builder::link_uses_
  bool done() const { return next >= ch.n; }
};

class Builder {
 public:
  Builder(const Program& prog, const StagePrices& prices)
      : prog_(prog), prices_(prices), middle_(prices.chunk), last_(prices.last_chunk) {
    const Layout& l = prog.layout;
    g_.layout = l;
    g_.streams = l.ranks * kStreamsPerRank;
    for (int32_t h = 0; h < l.hops; ++h) g_.activation_bytes_per_stage.push_back(prices_of(h).activation_bytes);
    const size_t units = static_cast<size_t>(l.micro_batches) * static_cast<size_t>(l.hops);
    for (auto* v : {&f_first_, &f_last_, &f_out_, &b_first_, &b_last_, &b_out_, &w_first_}) v->assign(units, kNone);
    const size_t approx_ops = units * 12;
    g_.stream.reserve(approx_ops);
    g_.duration_seconds.reserve(approx_ops);
    g_.label.reserve(approx_ops);
    edges_.reserve(approx_ops * 2);
    last_on_stream_.assign(static_cast<size_t>(g_.streams), kNone);
    last_link_use_.assign(static_cast<size_t>(l.ranks), kNone);
  }

  OpGraph build() {
    // Ops are created round-robin over the ranks, one slot (or action) of each in turn, so
    // that op ids roughly follow simulated time and the engine sweeps memory forwards instead
    // of keeping one cursor per rank. Each rank's own order is unchanged.
    const bool explicit_comm = prog_.explicit_comm();
    const auto& begin = explicit_comm ? prog_.action_begin : prog_.begin;
    posted_.resize(static_cast<size_t>(prog_.layout.ranks));
    for (int32_t k = 0, more = 1; more; ++k) {
      more = 0;
      for (int32_t r = 0; r < prog_.layout.ranks; ++r) {
        const int32_t i = begin[static_cast<size_t>(r)] + k;
        if (i >= begin[static_cast<size_t>(r) + 1]) continue;
        more = 1;
        if (explicit_comm)
          action(r, prog_.actions[static_cast<size_t>(i)]);
        else
          slot(r, prog_.slots[static_cast<size_t>(i)], true);
      }
    }
    if (prices_.grad_sync_seconds > 0)
      for (int32_t r = 0; r < prog_.layout.ranks; ++r) grad_sync(r);
    connect_receives();
    connect_units();
    connect_link_uses();
    finish_csr();
    g_.forward_first_op = std::move(f_first_);
    g_.backward_last_op = std::move(b_last_);
    return std::move(g_);
  }

 private:
  size_t unit(int32_t mb, int32_t hop) const {
    return static_cast<size_t>(mb) * static_cast<size_t>(prog_.layout.hops) + static_cast<size_t>(hop);
  }
  const PhasePrices& prices_of(int32_t hop) const { return prices_.of_stage(hop, prog_.layout.hops); }
  const StageChains& chains(int32_t hop) const { return hop == prog_.layout.hops - 1 ? last_ : middle_; }

  int32_t add_op(int32_t rank, StreamKind s, double seconds, OpLabel label) {
    const auto id = static_cast<int32_t>(g_.stream.size());
    const int32_t stream = rank * kStreamsPerRank + static_cast<int32_t>(s);
    g_.stream.push_back(stream);
    g_.duration_seconds.push_back(seconds);
    g_.label.push_back(label);
    last_on_stream_[static_cast<size_t>(stream)] = id;
    return id;
  }

  void add_chained(int32_t rank, Cursor& c, StreamKind s, double seconds, Piece piece, bool serialised) {
    const int32_t op = add_op(rank, s, seconds, {c.ch.unit, piece, serialised, c.mb, c.hop});
    if (c.prev != kNone) edges_.emplace_back(c.prev, op);
    if (c.first == kNone) c.first = op;
    c.prev = op;
  }

  void flush_serialised(int32_t rank, Cursor& c) {
    if (c.serialised < 0) return;
    const PieceSpec& p = c.ch.pieces[static_cast<size_t>(c.serialised)];
    add_chained(rank, c, StreamKind::Compute, p.serialised_seconds, p.piece, true);
    LinkUse& use = link_uses_[static_cast<size_t>(c.link_use)];
    if (use.first == kNone) use.first = c.prev;
    use.end = c.prev;
    c.serialised = -1;
  }

  // Emits the cursor's next piece, chained after the unit's previous op. An all-to-all with
  // nothing hidden (overlap 0) has only its serialised part; one all hidden (overlap 1) keeps
  // a zero-length serialised part, so that the unit's next compute still waits for it (a lone
  // slot exposes its all-to-alls whole; without it, a warm-up's combine ran beside the next
  // slot's attention).
  void emit_piece(int32_t rank, Cursor& c) {
    flush_serialised(rank, c);
    const int k = c.next++;
    const PieceSpec& p = c.ch.pieces[static_cast<size_t>(k)];
    const bool a2a = p.stream == StreamKind::EpAllToAll;
    if (a2a) c.link_use = issue_link_use(rank);
    if (p.seconds > 0 || p.serialised_seconds == 0) {
      // Issued where the rank's program reaches it: after the compute stream's work so far
      // (DeepEP's previous_event), so a lone slot's first all-to-all does not run beside the
      // slot before it; in an F&B slot, what the partner computes after it still hides it.
      const int32_t issued_after =
          last_on_stream_[static_cast<size_t>(rank * kStreamsPerRank + static_cast<int32_t>(StreamKind::Compute))];
      const int32_t previous = c.prev;  // the chain edge already orders them
      add_chained(rank, c, p.stream, p.seconds, p.piece, false);
      if (a2a && issued_after != kNone && issued_after != previous) edges_.emplace_back(issued_after, c.prev);
      if (a2a) link_uses_[static_cast<size_t>(c.link_use)].first = c.prev;
    }
    if (a2a) c.serialised = k;
  }

  // An all-to-all's hidden part (EP stream) and serialised part (compute stream) hold the same
  // NICs and NVLink: the link takes the all-to-alls one at a time, each whole, in the order they
  // were issued. Without it, one all-to-all's serialised part ran beside another's hidden part,
  // each at full bandwidth, and a smaller overlap gave a shorter step. The serialised part is
  // emitted after the partner's next piece (see Cursor), so the edge from an all-to-all's end
  // to the next one's start is added once both exist (connect_link_uses).
  int32_t issue_link_use(int32_t rank) {
    const auto id = static_cast<int32_t>(link_uses_.size());
    int32_t& last = last_link_use_[static_cast<size_t>(rank)];
    link_uses_.push_back({last, kNone, kNone});
    last = id;
    return id;
  }
  void connect_link_uses() {
    for (const LinkUse& u : link_uses_)
      if (u.previous != kNone) edges_.emplace_back(link_uses_[static_cast<size_t>(u.previous)].end, u.first);
  }

  void finish(int32_t rank, Cursor& c) {
    flush_serialised(rank, c);
    const size_t u = unit(c.mb, c.hop);
    switch (c.ch.unit) {
      case UnitKind::Forward:
        f_first_[u] = c.first;
        f_last_[u] = f_out_[u] = c.prev;
        break;
      case UnitKind::Backward:
      case UnitKind::BackwardInput:
        b_first_[u] = c.first;
        b_last_[u] = b_out_[u] = c.prev;
        break;
      case UnitKind::Weight:
        w_first_[u] = c.first;
        break;
      case UnitKind::Transfer:
      case UnitKind::Sync:
      case UnitKind::GradSync:
        break;
    }
  }

  // A transfer costs what the producing stage sends.
  int32_t transfer(int32_t rank, int32_t dst, int32_t after, int32_t mb, int32_t hop) {
    const StreamKind link = dst == (rank + 1) % prog_.layout.ranks ? StreamKind::PpSendNext : StreamKind::PpSendPrev;
    const int32_t t =
        add_op(rank, link, prices_of(hop).pp_send_seconds, {UnitKind::Transfer, Piece::Send, false, mb, hop});
    edges_.emplace_back(after, t);
    return t;
  }

  // Without explicit communication a forward's activation or a backward's gradient is sent as
  // soon as it is ready, when the next hop runs on another rank.
  void auto_send(int32_t rank, UnitKind kind, int32_t mb, int32_t hop) {
    if (kind == UnitKind::Weight) return;
    const Layout& l = prog_.layout;
    const size_t u = unit(mb, hop);
    const bool fwd = kind == UnitKind::Forward;
    const int32_t to_hop = fwd ? hop + 1 : hop - 1;
    if (to_hop < 0 || to_hop >= l.hops) return;
    const int32_t dst = l.rank_of(mb, to_hop);
    if (dst == rank) return;
    int32_t& out = fwd ? f_out_[u] : b_out_[u];
    out = transfer(rank, dst, out, mb, hop);
  }

  void single(int32_t rank, const Chain& ch, int32_t mb, int32_t hop, bool send) {
    Cursor c{ch, mb, hop};
    while (!c.done()) emit_piece(rank, c);
    finish(rank, c);
    if (send) auto_send(rank, ch.unit, mb, hop);
  }

  // Emits two units' pieces in `order` ('x' or 'y' per piece, skipped once that unit is done),
  // then whatever either has left.
  void interleave(int32_t rank, Cursor& x, Cursor& y, std::string_view order) {
    for (char c : order) {
      Cursor& cur = c == 'x' ? x : y;
      if (!cur.done()) emit_piece(rank, cur);
    }
    while (!x.done()) emit_piece(rank, x);
    while (!y.done()) emit_piece(rank, y);
  }
  void finish_both(int32_t rank, Cursor& x, Cursor& y, bool send) {
    finish(rank, x);
    finish(rank, y);
    if (!send) return;
    auto_send(rank, x.ch.unit, x.mb, x.hop);
    auto_send(rank, y.ch.unit, y.mb, y.hop);
  }

  // F&B: the compute of each chain is placed between the all-to-alls of the other
  // (B.combine | F.attn, F.dispatch | B.mlp, B.dispatch | F.mlp, F.combine | B.attn).
  void pair(int32_t rank, const Chain& f, int32_t fmb, int32_t fhop, const Chain& b, int32_t bmb, int32_t bhop,
            bool send) {
    Cursor fc{f, fmb, fhop}, bc{b, bmb, bhop};
    interleave(rank, fc, bc, f.a2a || b.a2a ? "yxxyyxxy" : "xy");
    finish_both(rank, fc, bc, send);
  }

  // Two forwards on one rank (serving's two micro-batches), interleaved round by round (layer
  // by layer): A0 D0 A1 D1 M0 C0 M1 C1, so that each micro-batch's dispatch and combine run
  // beside the other's attention and MLP, and the last combine of a round beside the first
  // attention of the next.
  void forward_pair(int32_t rank, const StageChains& c, int32_t mb0, int32_t mb1, int32_t hop, bool send) {
    Cursor a{c.fwd_round, mb0, hop}, b{c.fwd_round, mb1, hop};
    for (int32_t round = 0; round < c.rounds; ++round) {
      a.next = b.next = 0;
      interleave(rank, a, b, "xxyyxxyy");
    }
    finish_both(rank, a, b, send);
  }

  void action(int32_t r, const Action& a) {
    switch (a.kind) {
      case ActionKind::Compute:
        slot(r, prog_.slots[static_cast<size_t>(a.slot)], false);
        break;
      case ActionKind::PostSend:
        post_send(r, a);
        break;
      case ActionKind::PostRecv:
        post_recv(r, a);
        break;
      case ActionKind::Commit:
        commit(r);
        break;
    }
  }

  void slot(int32_t r, const Slot& s, bool auto_send) {
    const StageChains& c = chains(s.hop);
    switch (s.kind) {
      case SlotKind::Forward:
        single(r, c.fwd, s.mb, s.hop, auto_send);
        break;
      case SlotKind::Backward:
        single(r, c.bwd, s.mb, s.hop, auto_send);
        break;
      case SlotKind::BackwardInput:
        single(r, c.bwd_in, s.mb, s.hop, auto_send);
        break;
      case SlotKind::Weight:
        single(r, c.wgt, s.mb, s.hop, auto_send);
        break;
      case SlotKind::ForwardBackward:
        pair(r, c.fwd, s.mb, s.hop, chains(s.hop2).bwd, s.mb2, s.hop2, auto_send);
        break;
      case SlotKind::ForwardForward:
        forward_pair(r, c, s.mb, s.mb2, s.hop, auto_send);
        break;
    }
  }

  // The exposed DP gradient sync closes the rank's step: it follows the last op of every
  // stream of the rank (the compute stream runs it, so no compute overlaps it).
  void grad_sync(int32_t rank) {
    std::array<int32_t, kStreamsPerRank> last{};
    for (int32_t k = 0; k < kStreamsPerRank; ++k)
      last[static_cast<size_t>(k)] = last_on_stream_[static_cast<size_t>(rank * kStreamsPerRank + k)];
    const int32_t op =
        add_op(rank, StreamKind::Compute, prices_.grad_sync_seconds, {UnitKind::GradSync, Piece::Whole, false, 0, 0});
    for (int32_t before : last)
      if (before != kNone) edges_.emplace_back(before, op);
  }

  // Explicit communication (see ActionKind): a posted send becomes a transfer on the link; at
  // a commit, a zero-length `launch` op marks when the compute stream got there and a `wait`
  // op holds the stream until every transfer launched there is done. A transfer starts once
  // its data is ready and both the sender and the receiver have launched it.
  void post_send(int32_t rank, const Action& a) {
    const bool fwd = a.data == Data::Activation;
    const size_t u = unit(a.mb, a.hop);
    const int32_t dst = prog_.layout.rank_of(a.mb, fwd ? a.hop + 1 : a.hop - 1);
    const int32_t t = transfer(rank, dst, fwd ? f_last_[u] : b_last_[u], a.mb, a.hop);
    (fwd ? f_out_ : b_out_)[u] = t;
    posted_[static_cast<size_t>(rank)].sends.push_back(t);
  }
  void post_recv(int32_t rank, const Action& a) {
    const bool fwd = a.data == Data::Activation;
    posted_[static_cast<size_t>(rank)].recvs.push_back({fwd, a.mb, fwd ? a.hop - 1 : a.hop + 1, kNone, kNone});
  }
  void commit(int32_t rank) {
    const OpLabel sync{UnitKind::Sync, Piece::Whole, false, 0, 0};
    const int32_t launch = add_op(rank, StreamKind::Compute, 0.0, sync);
    const int32_t wait = add_op(rank, StreamKind::Compute, 0.0, sync);
    edges_.emplace_back(launch, wait);
    auto& posted = posted_[static_cast<size_t>(rank)];
    for (int32_t t : posted.sends) {
      edges_.emplace_back(launch, t);
      edges_.emplace_back(t, wait);
    }
    for (auto& r : posted.recvs) {
      r.launch = launch;
      r.wait = wait;
      receives_.push_back(r);
    }
    posted.sends.clear();
    posted.recvs.clear();
  }
  void connect_receives() {
    for (const auto& r : receives_) {
      const size_t u = unit(r.mb, r.producer_hop);
      const int32_t t = r.activation ? f_out_[u] : b_out_[u];
      if (t == kNone || !is_transfer(t))
        missing(r.activation ? "the send of an activation" : "the send of a gradient", r.mb, r.producer_hop);
      edges_.emplace_back(r.launch, t);
      edges_.emplace_back(t, r.wait);
    }
  }

  [[noreturn]] void missing(const char* what, int32_t mb, int32_t hop) const {
    throw std::logic_error(std::string("schedule generator left out ") + what + " of micro-batch " +
                           std::to_string(mb) + " at hop " + std::to_string(hop));
  }

  bool is_transfer(int32_t op) const { return g_.label[static_cast<size_t>(op)].unit == UnitKind::Transfer; }

  // A unit's inputs: the previous hop's forward output and the next hop's backward output
  // (through a transfer when they run on another rank), and its own forward before its
  // backward before its W. A forward-only program's units end with their forward (that is
  // when their activations are released); with feedback, a micro-batch starts its first hop
  // once the same slot's previous one has left the last hop (the sampled ids it returns are a
  // few bytes, not priced).
  void connect_units() {
    const Layout& l = prog_.layout;
    for (int32_t mb = 0; mb < l.micro_batches; ++mb) {
      for (int32_t hop = 0; hop < l.hops; ++hop) {
        const size_t u = unit(mb, hop);
        if (f_first_[u] == kNone) missing("the forward", mb, hop);
        if (prog_.forward_only) {
          b_last_[u] = f_last_[u];
          if (hop > 0) link(f_out_[u - 1], f_first_[u]);
          if (hop == 0 && prog_.feedback > 0 && mb >= prog_.feedback)
            edges_.emplace_back(f_last_[unit(mb - prog_.feedback, l.hops - 1)], f_first_[u]);
          continue;
        }
        if (b_first_[u] == kNone) missing("the backward", mb, hop);
        if (hop > 0) link(f_out_[u - 1], f_first_[u]);
        if (hop + 1 < l.hops) link(b_out_[u + 1], b_first_[u]);
        edges_.emplace_back(f_last_[u], b_first_[u]);
        if (w_first_[u] != kNone) edges_.emplace_back(b_last_[u], w_first_[u]);
      }
    }
  }
  void link(int32_t producer_out, int32_t consumer_first) {
    edges_.emplace_back(producer_out, consumer_first);
    if (is_transfer(producer_out)) g_.transfer_consumer.emplace_back(producer_out, consumer_first);
  }

  // Counting sorts: successor lists by source op, stream order by creation order.
  void finish_csr() {
    const size_t n = g_.stream.size();
    g_.pred_count.assign(n, 0);
    g_.succ_begin.assign(n + 1, 0);
    for (const auto& [from, to] : edges_) {
      ++g_.succ_begin[static_cast<size_t>(from) + 1];
      ++g_.pred_count[static_cast<size_t>(to)];
    }
    for (size_t i = 0; i < n; ++i) g_.succ_begin[i + 1] += g_.succ_begin[i];
    g_.succ.resize(edges_.size());
    std::vector<int32_t> fill(g_.succ_begin.begin(), g_.succ_begin.end() - 1);
    for (const auto& [from, to] : edges_) g_.succ[static_cast<size_t>(fill[static_cast<size_t>(from)]++)] = to;

    const auto streams = static_cast<size_t>(g_.streams);
    g_.stream_begin.assign(streams + 1, 0);
    for (int32_t s : g_.stream) ++g_.stream_begin[static_cast<size_t>(s) + 1];
    for (size_t i = 0; i < streams; ++i) g_.stream_begin[i + 1] += g_.stream_begin[i];
    g_.stream_ops.resize(n);
    std::vector<int32_t> pos(g_.stream_begin.begin(), g_.stream_begin.end() - 1);
    for (size_t op = 0; op < n; ++op)
      g_.stream_ops[static_cast<size_t>(pos[static_cast<size_t>(g_.stream[op])]++)] = static_cast<int32_t>(op);
  }

  struct Receive {
    bool activation;
    int32_t mb, producer_hop, launch, wait;
  };

  const Program& prog_;
  const StagePrices& prices_;
  const StageChains middle_, last_;
  OpGraph g_;
  struct Posted {  // per rank, since the last commit
    std::vector<int32_t> sends;
    std::vector<Receive> recvs;
  };

  std::vector<Posted> posted_;
  std::vector<Receive> receives_;
  std::vector<std::pair<int32_t, int32_t>> edges_;
  std::vector<int32_t> f_first_, f_last_, f_out_, b_first_, b_last_, b_out_, w_first_;
  std::vector<int32_t> last_on_stream_;
  struct LinkUse {
    int32_t previous;    // the rank's all-to-all issued before, kNone for its first
    int32_t first, end;  // its first op (hidden part, else serialised) and its serialised part
  };
  std::vector<LinkUse> link_uses_;
  std::vector<int32_t> last_link_use_;  // per rank
};

}  // namespace

OpGraph build_op_graph(const Program& program, const StagePrices& prices) { return Builder(program, prices).build(); }

OpGraph build_op_graph(const Program& program, const PhasePrices& prices) {
  return build_op_graph(program, uniform_stages(prices));
}

}  // namespace mhcsim::sim
