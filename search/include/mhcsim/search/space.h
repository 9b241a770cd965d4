#pragma once
// The configuration space of `mhcsim search`: every way to run a training scenario's model on a
// job of N GPUs at a fixed global batch. A point is one value on each axis (job size, TP, CP,
// PP, EP, schedule with its virtual stages, sequences per micro-batch, sequence parallelism,
// ZeRO stage, activation recompute, mHC recompute block); DP and the micro-batch count follow
// (DP = N / (TP x CP x PP), micro-batches = global batch / (DP x micro-batch sequences)).
//
// Points that cannot divide are cut while the space is walked, before anything is priced, by
// the rules scenarios/src/check.cpp applies to a scenario file (each rule's reason below names
// the key it guards). The walk goes axis by axis in Candidate's order and applies each rule as
// soon as its axes are fixed, in the order of the enum (DualPipe's odd-PP rule, a Schedule
// rule, already with the stage split); a point is counted under the first rule it breaks, and
// a rejected prefix counts every point below it, so the counts and the priced points add up to
// the space's size.
#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "mhcsim/specs.h"

namespace mhcsim::search {

// Why a point was cut, in the order the rules are applied.
enum class Prune : int {
  MaxGpus,        // job size above --max-gpus
  TpHeads,        // attention heads not divisible by TP (parallel.tp)
  CpSequence,     // workload.seq_len not divisible into 2 x CP chunks (parallel.cp)
  PpLayers,       // PP above the layer count (parallel.pp)
  GpuSplit,       // the job size not a multiple of TP x CP x PP (hardware.gpus)
  EpSplit,        // EP above the routed experts, not dividing them (+ redundant) or DP x TP, or
                  // spreading the expert groups past parallel.max_nodes_per_token (parallel.ep)
  StageSplit,     // layers + extra_stage_layers not divisible by the pipeline stages (parallel.pp)
  BatchSplit,     // global batch not divisible by DP x micro-batch sequences, or too many micro-batches
  Schedule,       // DualPipe with odd PP or an odd micro-batch count; DualPipe(V) with fewer than
                  // 2 PP micro-batches; ZB-H1 with fewer than PP; interleaved with micro-batches not a
                  // multiple of PP
  SpWithoutTp,    // sequence parallelism with TP 1 (the same point as without)
  ZeroWithoutDp,  // ZeRO 1-3 with DP 1 (nothing to shard)
  MhcBlock,       // mHC recompute block longer than a chunk's mHC sub-layers
  Memory,         // does not fit in HBM (sweep::capacity)
  Headroom,       // fits, with less free HBM than --min-headroom-gib
  Budget,         // priced, and the token budget would cost more than --max-cost-usd
  kCount
};
inline constexpr size_t kPruneReasons = static_cast<size_t>(Prune::kCount);
std::string_view prune_name(Prune p);  // "gpu_split", "memory", ...

struct PruneCounts {
  std::array<int64_t, kPruneReasons> points{};
  int64_t& operator[](Prune p) { return points[static_cast<size_t>(p)]; }
  int64_t operator[](Prune p) const { return points[static_cast<size_t>(p)]; }
  int64_t total() const;
  PruneCounts& operator+=(const PruneCounts& o);
  // "gpu_split 20871168, tp_heads 1658880, ..., memory 5231": the non-zero counts.
  std::string summary() const;
};

// mHC recompute: off, on with Eq. 20's optimal block, or on with a fixed block of layers.
inline constexpr int64_t kMhcRecomputeOff = -1;
inline constexpr int64_t kMhcRecomputeOptimal = 0;

// One point of the space, with what follows from it.
struct Candidate {
  int64_t gpus = 0, tp = 1, cp = 1, pp = 1, dp = 1, ep = 1;
  Schedule schedule = Schedule::OneF1B;
  int64_t virtual_stages = 1;
  bool combined_1f1b = false;  // Megatron-Core's combined 1F1B (MoE with ep > 1)
  int64_t micro_batch_seqs = 1;
  int64_t micro_batches = 1;
  bool sequence_parallel = false;
  int64_t zero_stage = 0;
  ActivationRecompute recompute = ActivationRecompute::None;
  int64_t mhc_block = kMhcRecomputeOff;  // kMhcRecomputeOff when the model has no mHC
};

// The values each axis takes. Empty lists are filled by default_axes.
struct Axes {
  std::vector<int64_t> gpus;            // job sizes
  std::vector<Schedule> schedules;      // interleaved expands over virtual_stages
  std::vector<int64_t> virtual_stages;  // for the interleaved schedule (>= 2)
  std::vector<int64_t> micro_batch_seqs;
  std::vector<ActivationRecompute> recompute;
  std::vector<int64_t> zero_stages;
  std::vector<int64_t> mhc_blocks;  // kMhcRecomputeOff, kMhcRecomputeOptimal, or L_r > 0
};
// Every schedule; virtual stages 2..8; for a MoE model, interleaved and 1F1B also as combined
// 1F1B (where ep > 1, and 1F1B at PP 1 only); micro-batches of 1, 2, 4 and 8 sequences; every
// recompute mode and ZeRO stage; for an mHC model, recompute off, optimal, and blocks of 1, 2,
// 4 and 8 layers ({off} without mHC). `gpus` is kept as given (the base's job size if empty).
Axes default_axes(const Scenario& base, Axes given);

struct SpaceLimits {
  int64_t global_batch_seqs = 0;  // sequences per optimizer step, > 0
  int64_t max_gpus = 0;           // 0: no limit
};

// The global batch a training scenario runs: workload.global_batch_seqs, or DP x micro-batch
// sequences x micro-batches.
int64_t scenario_global_batch(const Scenario& s);

// Points in the space (the product of the axis sizes; TP, CP, PP and EP take every divisor of
// the job size).
int64_t space_size(const Scenario& base, const Axes& axes);

// Walks the space in a fixed order, calling `visit` for every point that divides (in that
// order, so the i-th call is the same point on every run) and counting the rest in `pruned`.
void enumerate(const Scenario& base, const Axes& axes, const SpaceLimits& limits,
               const std::function<void(const Candidate&)>& visit, PruneCounts& pruned);

// The scenario for a candidate: `base` with its parallel layout, micro-batching and recompute
// replaced (what the cost model reads; no validation, the walk has checked it).
void apply(const Candidate& c, Scenario& s);

// The same candidate as scenario overrides (--set key=value), for a fully validated scenario
// (ScenarioTemplate::instantiate) and for users to paste.
struct KeyValue {
  std::string key, value;
};
std::vector<KeyValue> overrides(const Candidate& c, int64_t global_batch_seqs);

// "tp 1->2, pp 16->8": the parameters in which `b` differs from `a`.
std::string differences(const Candidate& a, const Candidate& b);

}  // namespace mhcsim::search
