// The engine: pops events in (time, kind, seq) order and lets the replicas, the router and the
// metrics react; handlers push the events that follow. Only one arrival is pending at a time
// (the source is pulled as the clock reaches it), so memory follows the requests in flight.
#include "mhcsim/serving/simulate.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "event_queue.h"
#include "iteration_trace.h"
#include "live_request.h"
#include "metrics.h"
#include "mhcsim/cost/kv_cache.h"
#include "mhcsim/cost/rates.h"
#include "mhcsim/error.h"
#include "mhcsim/interrupt.h"
#include "replica.h"
#include "router.h"

namespace mhcsim::serving {

Deployment::Deployment(const Scenario& s) : scenario_(s), model_(s) {
  // Prefill and decode replicas sit on different nodes: the NIC.
  const auto link = cost::nic_rate(s);
  nic_alpha_s_ = link.alpha_seconds;
  nic_bytes_per_s_ = link.bytes_per_second;
}

double Deployment::kv_transfer_seconds(double tokens) const {
  return nic_alpha_s_ + tokens * model_.kv_bytes_per_token_per_gpu() / nic_bytes_per_s_;
}

namespace {
using namespace detail;

// Events between polls of an interrupt request (interrupt.h): a few milliseconds of simulation.
constexpr int64_t kEventsBetweenPolls = 1 << 14;

struct Pool {
  const Deployment* deployment = nullptr;
  int64_t first = 0, count = 0;
  bool prefill_only = false;
  const char* label = "serving";  // the pool, as capacity.h names it: serving, prefill or decode
};

int64_t max_seqs(const Deployment& d, const SchedulerConfig& c) {
  return c.max_batch_seqs > 0 ? c.max_batch_seqs : std::max<int64_t>(1, d.scenario().workload.batch_seqs);
}

void check_config(const ServingConfig& c) {
  require(c.replicas >= 1 && c.replicas <= kMaxReplicas, "--replicas", fmt::format("must be in [1, {}]", kMaxReplicas));
  require(c.prefill_replicas >= 0 && c.prefill_replicas <= kMaxReplicas, "--prefill-replicas",
          fmt::format("must be in [0, {}]", kMaxReplicas));
  for (const auto* s : {&c.scheduler, &c.prefill_scheduler}) {
    require(s->token_budget >= 1, "--token-budget", "must be >= 1");
    require(s->max_batch_seqs >= 0, "--max-batch", "must be >= 1");
    require(s->kv_watermark >= 0 && s->kv_watermark < 1, "kv_watermark", "must be in [0, 1)");
  }
  require(c.prefix_hit_ratio >= 0 && c.prefix_hit_ratio < 1, "--prefix-hit", "must be in [0, 1)");
}

class Engine {
 public:
  Engine(const Deployment& main, const Deployment& prefill, const ServingConfig& config, RequestSource& source)
      : config_(config),
        source_(source),
        router_(config.router),
        prefill_router_(config.router),
        trace_(config.trace, config.trace_replicas, config.trace_max_bytes),
        metrics_(config.slo_ttft_s, config.slo_tpot_s, 0) {
    const bool disaggregated = config.prefill_replicas > 0;
    if (disaggregated) add_pool(prefill, config.prefill_replicas, config.prefill_scheduler, true, "prefill");
    add_pool(main, config.replicas, config.scheduler, false, disaggregated ? "decode" : "serving");
    metrics_ = Metrics(config.slo_ttft_s, config.slo_tpot_s, total_blocks_);
  }

  ServingResult run() {
    check_largest();
    pull_arrival();
    for (int64_t n = 1; !events_.empty(); ++n) {
      if (n % kEventsBetweenPolls == 0) throw_if_interrupted();
      const Event e = events_.pop();
      metrics_.advance(e.time_s, in_system_, used_blocks_);
      switch (e.kind) {
        case EventKind::Arrival:
          on_arrival(e.time_s);
          break;
        case EventKind::IterationEnd:
          on_iteration_end(e.time_s, e.target);
          break;
        case EventKind::KvTransferDone:
          on_transfer_done(e.time_s, e.target);
          break;
      }
    }
    std::vector<detail::Metrics::PoolBill> bills;
    for (const auto& p : pools_) {
      const auto& hw = p.deployment->scenario().hardware;
      bills.push_back({p.count * p.deployment->model().gpus_per_replica(), hw.gpus_per_node, hw.price_per_gpu_hour});
    }
    auto r = metrics_.result(bills);
    r.iterations = iterations_;
    if (source_.rate_per_s() > 0) r.rate_per_s = source_.rate_per_s();
    r.trace_stopped_at_s = trace_.stopped_at_s();
    for (const auto& rep : replicas_) r.preemptions += rep.preemptions();
    return r;
  }

 private:
  void add_pool(const Deployment& d, int64_t count, const SchedulerConfig& c, bool prefill_only, const char* label) {
    const auto& m = d.model();
    Pool p{&d, static_cast<int64_t>(replicas_.size()), count, prefill_only, label};
    for (int64_t i = 0; i < count; ++i) {
      trace_.name(p.first + i, fmt::format("{} {}", label, i), i);
      replicas_.emplace_back(m.kv_blocks(), m.kv_block_tokens(), c, max_seqs(d, c), prefill_only);
      nic_free_s_.push_back(0.0);
      pool_of_.push_back(static_cast<int>(pools_.size()));
    }
    // The KV-cache figures are the pool that decodes (all of them colocated): a prefill replica
    // holds a prompt's blocks only until they are sent, and its idle cache would hide a full one.
    if (!prefill_only) total_blocks_ += count * m.kv_blocks();
    pools_.push_back(p);
  }
  const Pool& entry_pool() const { return pools_.front(); }
  void count_blocks(int64_t replica, int64_t change) {
    if (!pools_[static_cast<size_t>(pool_of_[static_cast<size_t>(replica)])].prefill_only) used_blocks_ += change;
  }
  const Pool& decode_pool() const { return pools_.back(); }

  // A request must fit one replica's cache alone in every pool it visits: its prompt in the
  // prefill pool, prompt and output in the one that decodes.
  void check_fits(const Request& r) {
    for (const auto& p : pools_) {
      const auto& m = p.deployment->model();
      const int64_t tokens = p.prefill_only ? r.input_tokens : r.input_tokens + r.output_tokens;
      const int64_t blocks = (tokens + m.kv_block_tokens() - 1) / m.kv_block_tokens();
      if (blocks <= m.kv_blocks() && tokens < std::numeric_limits<int32_t>::max() / 2) continue;
      const std::string reason = fmt::format(
          "a request of {} tokens needs {} KV blocks of {} tokens; one {} replica holds {} (HBM - weights - "
          "reserve, cost::kv_fit)",
          tokens, blocks, m.kv_block_tokens(), p.label, m.kv_blocks());
      // A file's row: the column that does not fit, the output where the prompt alone would.
      const bool prompt_fits = (r.input_tokens + m.kv_block_tokens() - 1) / m.kv_block_tokens() <= m.kv_blocks();
      if (r.line > 0)
        throw InputError(prompt_fits && !p.prefill_only ? "output_tokens" : "input_tokens", reason,
                         {source_.file_path(), r.line});
      throw InputError("hardware.gpu",
                       reason +
                           "; generated requests are checked at the longest the lengths can draw (exponential "
                           "ones reach 8 x their mean: --lengths)",
                       {p.deployment->scenario().path, 0});
    }
  }

  // Generated requests are checked once, at their largest.
  // (The longest prompt and answer together: checked as the prompt alone, it blamed the prefill
  // pool for a 700k-token prompt with a 100k-token answer that only the decode pool cannot hold.)
  void check_largest() {
    if (const auto r = source_.largest_request()) check_fits(*r);
  }

  void pull_arrival() {
    if (auto r = source_.next()) {
      check_fits(*r);
      next_ = *r;
      events_.push(r->arrival_s, EventKind::Arrival, 0);
    }
  }

  void on_arrival(double now) {
    const Request& q = next_;
    Live r;
    r.id = q.id;
    r.arrival_s = q.arrival_s;
    r.input = static_cast<int32_t>(q.input_tokens);
    r.output = static_cast<int32_t>(q.output_tokens);
    r.prompt = r.input;
    r.hit = static_cast<int32_t>(std::floor(config_.prefix_hit_ratio * q.input_tokens));
    r.line = q.line;
    const Pool& p = entry_pool();
    const int64_t i = (p.prefill_only ? prefill_router_ : router_).pick(replicas_, p.first, p.count);
    replicas_[static_cast<size_t>(i)].enqueue(r);
    ++in_system_;
    metrics_.in_flight(in_system_);
    metrics_.arrival(now);
    start_iteration(now, i);
    pull_arrival();
  }

  void start_iteration(double now, int64_t i) {
    Replica& rep = replicas_[static_cast<size_t>(i)];
    if (rep.busy) return;
    const int64_t before = rep.used_blocks();
    const auto b = rep.form_batch();
    count_blocks(i, rep.used_blocks() - before);
    if (b.tokens() <= 0) return;
    const Pool& p = pools_[static_cast<size_t>(pool_of_[static_cast<size_t>(i)])];
    const auto& model = p.deployment->model();
    const double seconds = model.seconds(b);
    rep.busy = true;
    ++iterations_;
    metrics_.busy(seconds * static_cast<double>(model.gpus_per_replica()),
                  p.deployment->scenario().hardware.price_per_gpu_hour, b.prefill_tokens,
                  p.prefill_only ? 0.0 : b.decode_seqs);
    trace_.iteration(i, i - p.first, now, seconds, b, rep.used_blocks());
    events_.push(now + seconds, EventKind::IterationEnd, i);
  }

  void on_iteration_end(double now, int64_t i) {
    Replica& rep = replicas_[static_cast<size_t>(i)];
    rep.busy = false;
    done_.clear();
    handoff_.clear();
    const int64_t before = rep.used_blocks();
    rep.finish_iteration(now, done_, handoff_);
    count_blocks(i, rep.used_blocks() - before);
    for (const auto& r : done_) {
      metrics_.complete(r, now);
      --in_system_;
    }
    for (const auto& r : handoff_) send_kv(now, i, r);
    metrics_.sample_kv(now, used_blocks_);
    start_iteration(now, i);
  }

  // The prompt's KV leaves the prefill replica (its blocks stay taken until it has) for the
  // decode replica the router picks now (SGLang's PD router pairs the two before the transfer).
  // A replica's NICs carry one transfer at a time, sending or receiving: a burst of prompts
  // queues on them (128 prefill replicas sent 44.9 GB to one decode GPU in 23 ms, ~1.9 TB/s,
  // through a 50 GB/s NIC).
  void send_kv(double now, int64_t from, const Live& r) {
    int64_t slot;
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
    } else {
      slot = static_cast<int64_t>(transfers_.size());
      transfers_.emplace_back();
    }
    const Pool& p = decode_pool();
    const int64_t to = router_.pick(replicas_, p.first, p.count);
    replicas_[static_cast<size_t>(to)].expect(+1);
    transfers_[static_cast<size_t>(slot)] = {r, from, to};
    const auto& d = *pools_[static_cast<size_t>(pool_of_[static_cast<size_t>(from)])].deployment;
    double& sender = nic_free_s_[static_cast<size_t>(from)];
    double& receiver = nic_free_s_[static_cast<size_t>(to)];
    const double end = std::max({now, sender, receiver}) + d.kv_transfer_seconds(r.cached);
    sender = receiver = end;
    events_.push(end, EventKind::KvTransferDone, slot);
  }

  void on_transfer_done(double now, int64_t slot) {
    auto [r, from, to] = transfers_[static_cast<size_t>(slot)];
    free_slots_.push_back(slot);
    Replica& src = replicas_[static_cast<size_t>(from)];
    src.release(r.blocks);
    count_blocks(from, -r.blocks);
    r.blocks = 0;
    start_iteration(now, from);  // the freed blocks may admit a waiting prompt
    Replica& dst = replicas_[static_cast<size_t>(to)];
    dst.expect(-1);
    dst.enqueue(r);
    start_iteration(now, to);
  }

  const ServingConfig& config_;
  RequestSource& source_;
  Router router_, prefill_router_;
  IterationTrace trace_;
  Metrics metrics_;
  EventQueue events_;
  std::vector<Pool> pools_;
  std::vector<Replica> replicas_;
  std::vector<int> pool_of_;
  int64_t total_blocks_ = 0, used_blocks_ = 0;
  int64_t in_system_ = 0, iterations_ = 0;
  Request next_;
  std::vector<Live> done_, handoff_;
  struct Transfer {
    Live request;
    int64_t from = 0, to = 0;
  };
  std::vector<double> nic_free_s_;  // per replica: when its NICs finish the transfers queued on them
  std::vector<Transfer> transfers_;
  std::vector<int64_t> free_slots_;
};
}  // namespace

ServingResult simulate(const Deployment& deployment, const ServingConfig& config, RequestSource& requests,
                       const Deployment* prefill_pool) {
  check_config(config);
  Engine engine(deployment, prefill_pool ? *prefill_pool : deployment, config, requests);
  return engine.run();
}

}  // namespace mhcsim::serving
