#include "mhcsim/search/space.h"

#include <fmt/format.h>

#include <algorithm>

#include "mhcsim/cost/all_to_all.h"
#include "mhcsim/error.h"
#include "mhcsim/scenarios/schedule_rules.h"
#include "mhcsim/sweep/evaluators.h"

namespace mhcsim::search {
namespace {

// scenarios/src/schema.h's bound on micro-batches per pipeline (a private header there).
constexpr int64_t kMaxMicroBatches = int64_t{1} << 20;

constexpr std::array<std::string_view, kPruneReasons> kNames = {
    "max_gpus", "tp_heads",      "cp_sequence",     "pp_layers", "gpu_split", "ep_split", "stage_split", "batch_split",
    "schedule", "sp_without_tp", "zero_without_dp", "mhc_block", "memory",    "headroom", "budget"};

std::vector<int64_t> divisors(int64_t n) {
  std::vector<int64_t> d;
  for (int64_t i = 1; i * i <= n; ++i)
    if (n % i == 0) {
      d.push_back(i);
      if (i != n / i) d.push_back(n / i);
    }
  std::sort(d.begin(), d.end());
  return d;
}

// One schedule option of the walk: a schedule with its virtual stages, and for a MoE model
// whether it runs as Megatron-Core's combined 1F1B (interleaved, or 1F1B at PP 1).
struct ScheduleOption {
  Schedule schedule;
  int64_t virtual_stages;
  bool combined_1f1b = false;
};

std::vector<ScheduleOption> schedule_options(const Axes& a, bool moe) {
  std::vector<ScheduleOption> out;
  for (const Schedule s : a.schedules) {
    const bool can_combine = moe && (s == Schedule::Interleaved1F1B || s == Schedule::OneF1B);
    for (const bool combined : {false, true}) {
      if (combined && !can_combine) continue;
      if (s == Schedule::Interleaved1F1B) {
        for (const int64_t v : a.virtual_stages) out.push_back({s, v, combined});
      } else {
        out.push_back({s, 1, combined});
      }
    }
  }
  return out;
}

// What every job size shares: the axes that do not depend on it, and the points below each level.
struct Walk {
  const Scenario& base;
  const Axes& axes;
  const SpaceLimits& limits;
  const std::function<void(const Candidate&)>& visit;
  PruneCounts& pruned;
  std::vector<ScheduleOption> schedules;
  int64_t below_mbs = 0;    // points under one (..., micro-batch sequences) prefix: sp x zero x recompute x mHC
  int64_t below_sched = 0;  // ... under one schedule option
  int64_t below_ep = 0;
  int64_t stage_layers = 0;

  void cut(Prune why, int64_t points) { pruned[why] += points; }

  void job(int64_t gpus) {
    const auto d = divisors(gpus);
    const auto nd = static_cast<int64_t>(d.size());
    const bool moe = base.model.is_moe();
    const int64_t n_ep = moe ? nd : 1;
    const int64_t below_pp = n_ep * below_ep;
    const int64_t below_cp = nd * below_pp, below_tp = nd * below_cp;
    if (limits.max_gpus > 0 && gpus > limits.max_gpus) return cut(Prune::MaxGpus, nd * below_tp);
    Candidate c;
    c.gpus = gpus;
    for (const int64_t tp : d) {
      if (base.model.heads % tp != 0) {
        cut(Prune::TpHeads, below_tp);
        continue;
      }
      c.tp = tp;
      for (const int64_t cp : d) {
        if (cp > 1 && base.workload.seq_len % (2 * cp) != 0) {
          cut(Prune::CpSequence, below_cp);
          continue;
        }
        c.cp = cp;
        for (const int64_t pp : d) {
          if (pp > base.model.layers) {
            cut(Prune::PpLayers, below_pp);
            continue;
          }
          if (gpus % (tp * cp * pp) != 0) {
            cut(Prune::GpuSplit, below_pp);
            continue;
          }
          c.pp = pp;
          c.dp = gpus / (tp * cp * pp);
          if (!moe) {
            c.ep = 1;
            schedules_of(c);
            continue;
          }
          for (const int64_t ep : d) {
            const int64_t slots = base.model.routed_experts + base.parallel.redundant_experts;
            // A file's max_nodes_per_token holds at the EP it was written for; at a larger EP
            // the expert groups spread over more nodes than it allows (cost::routing_nodes).
            const int64_t max_nodes = base.parallel.max_nodes_per_token;
            if (ep > base.model.routed_experts || slots % ep != 0 || (c.dp * tp) % ep != 0 ||
                (max_nodes > 0 && max_nodes < cost::routing_nodes(base.model, ep, base.parallel.redundant_experts,
                                                                  base.hardware.nvlink_domain())
                                                  .fewest)) {
              cut(Prune::EpSplit, below_ep);
              continue;
            }
            c.ep = ep;
            schedules_of(c);
          }
        }
      }
    }
  }

  void schedules_of(Candidate& c) {
    for (const auto& o : schedules) {
      if (stage_layers % (c.pp * stages_per_rank(o.schedule, o.virtual_stages)) != 0) {
        cut(Prune::StageSplit, below_sched);
        continue;
      }
      if (o.schedule == Schedule::DualPipe && c.pp % 2 != 0) {
        cut(Prune::Schedule, below_sched);
        continue;
      }
      // Combined 1F1B pairs EP all-to-alls (ep > 1) where its schedule runs (the scenario check's rules).
      if (o.combined_1f1b && (c.ep == 1 || !combined_1f1b_schedule(o.schedule, c.pp))) {
        cut(Prune::Schedule, below_sched);
        continue;
      }
      c.schedule = o.schedule;
      c.virtual_stages = o.virtual_stages;
      c.combined_1f1b = o.combined_1f1b;
      for (const int64_t mbs : axes.micro_batch_seqs) micro_batches_of(c, mbs);
    }
  }

  void micro_batches_of(Candidate& c, int64_t mbs) {
    const int64_t per_micro_batch = c.dp * mbs;
    const int64_t m = limits.global_batch_seqs / per_micro_batch;
    if (limits.global_batch_seqs % per_micro_batch != 0 || m > kMaxMicroBatches)
      return cut(Prune::BatchSplit, below_mbs);
    // What each schedule needs of the micro-batch count: the scenario check's rules.
    ParallelSpec shape;
    shape.pp = c.pp;
    shape.schedule = c.schedule;
    shape.virtual_stages = c.virtual_stages;
    shape.combined_1f1b = c.combined_1f1b;
    shape.micro_batches = m;
    if (scenarios::schedule_problem(shape, false)) return cut(Prune::Schedule, below_mbs);
    c.micro_batch_seqs = mbs;
    c.micro_batches = m;
    // Layers per chunk, and the mHC sub-layers (attention and MLP) a recompute block may span.
    const int64_t mhc_sublayers = 2 * (stage_layers / (c.pp * stages_per_rank(c.schedule, c.virtual_stages)));
    const auto below_sp =
        static_cast<int64_t>(axes.zero_stages.size() * axes.recompute.size() * axes.mhc_blocks.size());
    const auto below_zero = static_cast<int64_t>(axes.recompute.size() * axes.mhc_blocks.size());
    for (const bool sp : {false, true}) {
      if (sp && c.tp == 1) {
        cut(Prune::SpWithoutTp, below_sp);
        continue;
      }
      c.sequence_parallel = sp;
      for (const int64_t zero : axes.zero_stages) {
        if (zero > 0 && c.dp == 1) {
          cut(Prune::ZeroWithoutDp, below_zero);
          continue;
        }
        c.zero_stage = zero;
        for (const auto rc : axes.recompute) {
          c.recompute = rc;
          for (const int64_t block : axes.mhc_blocks) {
            if (block > mhc_sublayers) {
              cut(Prune::MhcBlock, 1);
              continue;
            }
            c.mhc_block = block;
            visit(c);
          }
        }
      }
    }
  }
};

}  // namespace

std::string_view prune_name(Prune p) { return kNames[static_cast<size_t>(p)]; }

int64_t PruneCounts::total() const {
  int64_t t = 0;
  for (const int64_t n : points) t += n;
  return t;
}

PruneCounts& PruneCounts::operator+=(const PruneCounts& o) {
  for (size_t i = 0; i < kPruneReasons; ++i) points[i] += o.points[i];
  return *this;
}

std::string PruneCounts::summary() const {
  std::string out;
  for (size_t i = 0; i < kPruneReasons; ++i)
    if (points[i] > 0) out += fmt::format("{}{} {}", out.empty() ? "" : ", ", kNames[i], points[i]);
  return out.empty() ? "none" : out;
}

Axes default_axes(const Scenario& base, Axes a) {
  if (a.gpus.empty()) a.gpus = {base.hardware.gpus};
  if (a.schedules.empty())
    a.schedules = {Schedule::OneF1B, Schedule::Interleaved1F1B, Schedule::ZB1P, Schedule::DualPipe,
                   Schedule::DualPipeV};
  if (a.virtual_stages.empty()) a.virtual_stages = {2, 3, 4, 5, 6, 7, 8};
  if (a.micro_batch_seqs.empty()) a.micro_batch_seqs = {1, 2, 4, 8};
  if (a.recompute.empty())
    a.recompute = {ActivationRecompute::None, ActivationRecompute::Selective, ActivationRecompute::Full,
                   ActivationRecompute::Attention};
  if (a.zero_stages.empty()) a.zero_stages = {0, 1, 2, 3};
  if (a.mhc_blocks.empty()) {
    if (base.model.residual == ResidualKind::MHC && base.model.mhc_n > 1)
      a.mhc_blocks = {kMhcRecomputeOff, kMhcRecomputeOptimal, 1, 2, 4, 8};
    else
      a.mhc_blocks = {kMhcRecomputeOff};
  }
  return a;
}

int64_t scenario_global_batch(const Scenario& s) {
  if (s.workload.global_batch_seqs > 0) return s.workload.global_batch_seqs;
  return sweep::training_global_batch_seqs(s);
}

int64_t space_size(const Scenario& base, const Axes& axes) {
  const auto per_layout =
      static_cast<int64_t>(schedule_options(axes, base.model.is_moe()).size() * axes.micro_batch_seqs.size() * 2 *
                           axes.zero_stages.size() * axes.recompute.size() * axes.mhc_blocks.size());
  int64_t n = 0;
  for (const int64_t g : axes.gpus) {
    const auto nd = static_cast<int64_t>(divisors(g).size());
    n += nd * nd * nd * (base.model.is_moe() ? nd : 1) * per_layout;
  }
  return n;
}

void enumerate(const Scenario& base, const Axes& axes, const SpaceLimits& limits,
               const std::function<void(const Candidate&)>& visit, PruneCounts& pruned) {
  require(limits.global_batch_seqs > 0, "workload.global_batch_seqs", "search needs a global batch (expected > 0)");
  Walk w{base,   axes,
         limits, visit,
         pruned, schedule_options(axes, base.model.is_moe()),
         0,      0,
         0,      base.model.layers + base.parallel.extra_stage_layers};
  w.below_mbs = static_cast<int64_t>(2 * axes.zero_stages.size() * axes.recompute.size() * axes.mhc_blocks.size());
  w.below_sched = static_cast<int64_t>(axes.micro_batch_seqs.size()) * w.below_mbs;
  w.below_ep = static_cast<int64_t>(w.schedules.size()) * w.below_sched;
  for (const int64_t g : axes.gpus) w.job(g);
}

void apply(const Candidate& c, Scenario& s) {
  auto& p = s.parallel;
  s.hardware.gpus = c.gpus;
  p.tp = c.tp;
  p.cp = c.cp;
  p.pp = c.pp;
  p.dp = c.dp;
  p.ep = c.ep;
  p.schedule = c.schedule;
  p.virtual_stages = c.virtual_stages;
  p.combined_1f1b = c.combined_1f1b;
  p.micro_batches = c.micro_batches;
  p.sequence_parallel = c.sequence_parallel;
  // The scenario's TP overlap pipelines SP's all-gather and reduce-scatter; a layout without SP
  // has none to overlap (Megatron refuses the pair), so its collectives run exposed.
  if (!c.sequence_parallel) p.tp_overlap = 0;
  p.zero_stage = c.zero_stage;
  p.activation_recompute = c.recompute;
  p.recompute_mhc = c.mhc_block != kMhcRecomputeOff;
  p.mhc_recompute_block = std::max<int64_t>(c.mhc_block, 0);
  s.workload.micro_batch_seqs = c.micro_batch_seqs;
}

std::vector<KeyValue> overrides(const Candidate& c, int64_t global_batch_seqs) {
  auto str = [](std::string_view v) { return fmt::format("\"{}\"", v); };
  std::vector<KeyValue> o = {
      {"hardware.gpus", std::to_string(c.gpus)},
      {"parallel.tp", std::to_string(c.tp)},
      {"parallel.cp", std::to_string(c.cp)},
      {"parallel.pp", std::to_string(c.pp)},
      {"parallel.dp", std::to_string(c.dp)},
      {"parallel.ep", std::to_string(c.ep)},
      {"parallel.schedule", str(to_string(c.schedule))},
      {"parallel.virtual_stages", std::to_string(c.virtual_stages)},
      {"parallel.combined_1f1b", c.combined_1f1b ? "true" : "false"},
      {"parallel.micro_batches", std::to_string(c.micro_batches)},
      {"workload.micro_batch_seqs", std::to_string(c.micro_batch_seqs)},
      {"workload.global_batch_seqs", std::to_string(global_batch_seqs)},
      {"parallel.sequence_parallel", c.sequence_parallel ? "true" : "false"},
      {"parallel.zero_stage", std::to_string(c.zero_stage)},
      {"parallel.activation_recompute", str(to_string(c.recompute))},
      {"parallel.recompute_mhc", c.mhc_block != kMhcRecomputeOff ? "true" : "false"},
      {"parallel.mhc_recompute_block", std::to_string(std::max<int64_t>(c.mhc_block, 0))},
  };
  if (!c.sequence_parallel) o.push_back({"parallel.tp_overlap", "0"});  // as apply() sets it
  return o;
}

std::string differences(const Candidate& a, const Candidate& b) {
  std::string out;
  auto add = [&](std::string_view key, const auto& x, const auto& y) {
    if (x != y) out += fmt::format("{}{} {}->{}", out.empty() ? "" : ", ", key, x, y);
  };
  auto block = [](int64_t v) {
    return v == kMhcRecomputeOff       ? std::string("off")
           : v == kMhcRecomputeOptimal ? std::string("opt")
                                       : std::to_string(v);
  };
  add("gpus", a.gpus, b.gpus);
  add("tp", a.tp, b.tp);
  add("cp", a.cp, b.cp);
  add("pp", a.pp, b.pp);
  add("dp", a.dp, b.dp);
  add("ep", a.ep, b.ep);
  add("schedule", to_string(a.schedule), to_string(b.schedule));
  add("vstages", a.virtual_stages, b.virtual_stages);
  add("combined_1f1b", a.combined_1f1b ? "on" : "off", b.combined_1f1b ? "on" : "off");
  add("mb_seqs", a.micro_batch_seqs, b.micro_batch_seqs);
  add("micro_batches", a.micro_batches, b.micro_batches);
  add("sp", a.sequence_parallel ? "on" : "off", b.sequence_parallel ? "on" : "off");
  add("zero", a.zero_stage, b.zero_stage);
  add("recompute", to_string(a.recompute), to_string(b.recompute));
  add("mhc_block", block(a.mhc_block), block(b.mhc_block));
  return out.empty() ? "same" : out;
}

}  // namespace mhcsim::search
