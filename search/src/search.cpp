#include "mhcsim/search/search.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

#include "mhcsim/cost/step.h"
#include "mhcsim/error.h"
#include "mhcsim/interrupt.h"
#include "mhcsim/threads.h"
#include "mhcsim/sweep/feasibility.h"
#include "mhcsim/units.h"

namespace mhcsim::search {
namespace {

constexpr int64_t kChunk = 512;  // consecutive dividing points a worker prices together

// Top K of `v` by the objective, best first.
void keep_top(std::vector<Priced>& v, Objective o, int64_t k) {
  const auto keep = static_cast<size_t>(std::clamp<int64_t>(k, 0, static_cast<int64_t>(v.size())));
  const auto cmp = [o](const Priced& a, const Priced& b) { return better(o, a, b); };
  std::partial_sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(keep), v.end(), cmp);
  v.resize(keep);
}

// The points no other beats on throughput at the same or a lower `cost` (memory, GPUs), by cost.
template <class Cost>
void keep_front(std::vector<Priced>& v, Cost cost) {
  std::sort(v.begin(), v.end(), [&](const Priced& a, const Priced& b) {
    if (cost(a) != cost(b)) return cost(a) < cost(b);
    if (a.tokens_per_s != b.tokens_per_s) return a.tokens_per_s > b.tokens_per_s;
    return a.index < b.index;
  });
  std::vector<Priced> front;
  for (const auto& p : v)
    if (front.empty() || p.tokens_per_s > front.back().tokens_per_s) front.push_back(p);
  v = std::move(front);
}

double memory_cost(const Priced& p) { return p.memory_per_gpu_bytes; }
double gpu_cost(const Priced& p) { return static_cast<double>(p.candidate.gpus); }

// A batch of priced points reduced to what a Partial keeps.
void fold(Partial& into, std::vector<Priced>& batch, Objective o, int64_t top) {
  Partial p;
  p.top = batch;
  keep_top(p.top, o, top);
  p.memory_front = batch;
  keep_front(p.memory_front, memory_cost);
  p.gpu_front = std::move(batch);
  keep_front(p.gpu_front, gpu_cost);
  merge(into, p, o, top);
  batch.clear();
}

// The metrics of a point that fits, from the analytic step estimate.
Priced priced(const Scenario& s, const Candidate& c, double memory_bytes, int64_t index) {
  const auto est = cost::step_estimate(s);
  Priced p;
  p.index = index;
  p.candidate = c;
  p.step_time_s = est.step_seconds;
  p.tokens_per_s = est.tokens_per_second;
  p.memory_per_gpu_bytes = memory_bytes;
  p.headroom_bytes = s.hardware.gpu.hbm_bytes - memory_bytes;
  p.mfu = est.mfu;
  p.gpu_seconds_per_token = static_cast<double>(c.gpus) / est.tokens_per_second;
  p.gpu_hours_for_budget = est.gpu_hours_for_budget;
  return p;
}

// One thread's share: chunks whose number is `id` modulo `count`.
struct Share {
  const Scenario& base;
  const SearchOptions& o;
  const Axes& axes;
  int id, count;
  std::atomic<int64_t>& done;
  Partial result;

  void run() {
    Scenario s = base;
    const double hbm = s.hardware.gpu.hbm_bytes;
    std::vector<Priced> batch;
    int64_t index = 0;
    PruneCounts walk;
    enumerate(
        base, axes, o.limits,
        [&](const Candidate& c) {
          const int64_t i = index++;
          if ((i / kChunk) % count != id) return;
          ++result.dividing_points;
          apply(c, s);
          const auto capacity = sweep::capacity(s);
          if (!capacity.infeasible_reason.empty()) {
            ++result.pruned[Prune::Memory];
          } else if (hbm - capacity.memory_per_gpu_bytes < o.min_headroom_bytes) {
            ++result.pruned[Prune::Headroom];
          } else if (auto pt = priced(s, c, capacity.memory_per_gpu_bytes, i);
                     o.max_cost_usd > 0 && pt.gpu_hours_for_budget * s.hardware.price_per_gpu_hour > o.max_cost_usd) {
            ++result.pruned[Prune::Budget];
          } else {
            batch.push_back(std::move(pt));
            ++result.priced_points;
          }
          if (i % kChunk == kChunk - 1) {
            if (!batch.empty()) fold(result, batch, o.objective, o.top);
            done.fetch_add(kChunk, std::memory_order_relaxed);
            throw_if_interrupted();
          }
        },
        walk);
    if (!batch.empty()) fold(result, batch, o.objective, o.top);
    if (id == 0) result.pruned += walk;
  }
};

Partial run_shares(const Scenario& base, const SearchOptions& o, const Axes& axes, int worker, int workers) {
  const int threads = default_threads(o.threads);
  std::atomic<int64_t> done{0};
  std::vector<Share> shares;
  shares.reserve(static_cast<size_t>(threads));
  for (int t = 0; t < threads; ++t)
    shares.push_back(Share{base, o, axes, worker * threads + t, workers * threads, done, {}});
  ThreadsOptions run;
  if (o.progress)  // this thread draws the progress while the shares run
    run.meanwhile = [&](const std::atomic<int>& running) {
      int64_t total = 0;
      PruneCounts ignored;
      enumerate(
          base, axes, o.limits, [&](const Candidate&) { ++total; }, ignored);
      while (running.load() > 0) {
        o.progress(std::min(done.load() * workers, total), total);
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      o.progress(total, total);
    };
  run_threads(
      threads, [&](int t) { shares[static_cast<size_t>(t)].run(); }, run);
  Partial all;
  for (const auto& sh : shares) merge(all, sh.result, o.objective, o.top);
  return all;
}

}  // namespace

Objective parse_objective(const std::string& name) {
  for (const Objective o :
       {Objective::TokensPerSecond, Objective::CostPerToken, Objective::StepTime, Objective::MemoryHeadroom})
    if (objective_name(o) == name) return o;
  throw InputError("--objective", fmt::format("unknown objective '{}' (expected one of tokens_per_s, "
                                              "cost_per_token, step_time, memory_headroom)",
                                              name));
}

std::string_view objective_name(Objective o) {
  switch (o) {
    case Objective::TokensPerSecond:
      return "tokens_per_s";
    case Objective::CostPerToken:
      return "cost_per_token";
    case Objective::StepTime:
      return "step_time";
    case Objective::MemoryHeadroom:
      return "memory_headroom";
  }
  return "?";
}

double objective_value(Objective o, const Priced& p) {
  switch (o) {
    case Objective::TokensPerSecond:
      return p.tokens_per_s;
    case Objective::CostPerToken:
      return p.gpu_seconds_per_token;
    case Objective::StepTime:
      return p.step_time_s;
    case Objective::MemoryHeadroom:
      return p.headroom_bytes;
  }
  return 0;
}

bool higher_is_better(Objective o) { return o == Objective::TokensPerSecond || o == Objective::MemoryHeadroom; }

bool better(Objective o, const Priced& a, const Priced& b) {
  const double va = objective_value(o, a), vb = objective_value(o, b);
  if (va != vb) return higher_is_better(o) ? va > vb : va < vb;
  if (a.tokens_per_s != b.tokens_per_s) return a.tokens_per_s > b.tokens_per_s;
  // As fast for the same cost: the layout with more memory to spare is the safer one.
  if (a.headroom_bytes != b.headroom_bytes) return a.headroom_bytes > b.headroom_bytes;
  return a.index < b.index;
}

void merge(Partial& a, const Partial& b, Objective o, int64_t top) {
  a.pruned += b.pruned;
  a.dividing_points += b.dividing_points;
  a.priced_points += b.priced_points;
  a.top.insert(a.top.end(), b.top.begin(), b.top.end());
  keep_top(a.top, o, top);
  a.memory_front.insert(a.memory_front.end(), b.memory_front.begin(), b.memory_front.end());
  keep_front(a.memory_front, memory_cost);
  a.gpu_front.insert(a.gpu_front.end(), b.gpu_front.begin(), b.gpu_front.end());
  keep_front(a.gpu_front, gpu_cost);
}

Partial run_partial(const Scenario& base, const SearchOptions& o, int worker, int workers) {
  require(base.workload.mode == WorkloadMode::Train, "workload.mode",
          "search plans training runs (expected mode = \"train\")");
  const Axes axes = default_axes(base, o.axes);
  return run_shares(base, o, axes, worker, workers);
}

SearchResult run_search(const Scenario& base, const SearchOptions& o) {
  SearchResult r;
  r.objective = o.objective;
  r.global_batch_seqs = o.limits.global_batch_seqs;
  r.space_points = space_size(base, default_axes(base, o.axes));
  r.found = run_partial(base, o, 0, 1);
  require_ranked(r, o);
  return r;
}

void require_ranked(const SearchResult& r, const SearchOptions& o) {
  if (!r.found.top.empty()) return;
  const auto& p = r.found.pruned;
  const char* key = p[Prune::Budget] > 0                                                     ? "--max-cost-usd"
                    : p[Prune::Headroom] > 0                                                 ? "--min-headroom-gib"
                    : p[Prune::MaxGpus] > 0 && p.total() == p[Prune::MaxGpus]                ? "--max-gpus"
                    : p[Prune::BatchSplit] + p[Prune::Schedule] > 0 && p[Prune::Memory] == 0 ? "--global-batch"
                                                                                             : "--gpus";
  throw InputError(
      key,
      fmt::format(
          "no configuration meets the objective {} and constraints (global batch {} "
          "sequences{}{}{}): {} points, pruned {}",
          objective_name(o.objective), o.limits.global_batch_seqs,
          o.limits.max_gpus > 0 ? fmt::format(", at most {} GPUs", o.limits.max_gpus) : "",
          o.min_headroom_bytes > 0 ? fmt::format(", {:.1f} GiB headroom", o.min_headroom_bytes / kGiB) : std::string(),
          o.max_cost_usd > 0 ? fmt::format(", at most {:.0f} USD for the token budget", o.max_cost_usd) : std::string(),
          r.space_points, p.summary()));
}

std::optional<Priced> price(const Scenario& s, const Candidate& c) {
  const auto capacity = sweep::capacity(s);
  if (!capacity.infeasible_reason.empty()) return std::nullopt;
  return priced(s, c, capacity.memory_per_gpu_bytes, -1);
}

Candidate candidate_of(const Scenario& s) {
  const auto& p = s.parallel;
  Candidate c;
  c.gpus = s.hardware.gpus;
  c.tp = p.tp;
  c.cp = p.cp;
  c.pp = p.pp;
  c.dp = p.dp;
  c.ep = p.ep;
  c.schedule = p.schedule;
  c.virtual_stages = p.virtual_stages;
  c.combined_1f1b = p.combined_1f1b;
  c.micro_batch_seqs = s.workload.micro_batch_seqs;
  c.micro_batches = p.micro_batches;
  c.sequence_parallel = p.sequence_parallel;
  c.zero_stage = p.zero_stage;
  c.recompute = p.activation_recompute;
  const bool mhc = s.model.residual == ResidualKind::MHC && s.model.mhc_n > 1;
  c.mhc_block = !mhc || !p.recompute_mhc ? kMhcRecomputeOff : p.mhc_recompute_block;
  return c;
}

}  // namespace mhcsim::search
