// Configuration search (issue 18): the walk's prune counts add up to the space, the points it
// lets through are exactly those the scenario validator accepts, results do not depend on the
// thread count or on how work is split, the fronts are Pareto fronts, an unmeetable constraint
// is bad input with the counts, and the best point is at least as good as the shipped one.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "mhcsim/cost/step.h"
#include "mhcsim/error.h"
#include "mhcsim/scenarios/load.h"
#include "mhcsim/scenarios/template.h"
#include "mhcsim/search/distributed.h"
#include "mhcsim/search/output.h"
#include "mhcsim/search/search.h"
#include "mhcsim/units.h"

using namespace mhcsim;
using namespace mhcsim::search;

namespace {

const std::string kDir = std::string(MHCSIM_SOURCE_DIR) + "/scenarios/";

std::string text_of(const std::string& file) {
  std::ifstream in(kDir + file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Scenario dsv3() { return scenarios::load_scenario(kDir + "deepseek_v3_train.toml"); }

SearchOptions options_for(const Scenario& base, int64_t gpus) {
  SearchOptions o;
  o.axes.gpus = {gpus};
  o.limits.global_batch_seqs = scenario_global_batch(base);
  o.threads = 2;
  return o;
}

// The same with fewer values on the axes that do not change what is tested (a faster walk).
SearchOptions narrow_options_for(const Scenario& base, int64_t gpus) {
  SearchOptions o;
  o.axes.gpus = {gpus};
  o.axes.virtual_stages = {2, 4};
  o.axes.micro_batch_seqs = {1, 2};
  o.axes.recompute = {ActivationRecompute::Selective, ActivationRecompute::Full};
  o.axes.zero_stages = {0, 1};
  o.limits.global_batch_seqs = scenario_global_batch(base);
  o.threads = 2;
  return o;
}

using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, int, int64_t, bool, int64_t, bool, int64_t, int>;
Key key_of(const Candidate& c) {
  return {c.tp,
          c.cp,
          c.pp,
          c.ep,
          static_cast<int>(c.schedule),
          c.virtual_stages,
          c.combined_1f1b,
          c.micro_batch_seqs,
          c.sequence_parallel,
          c.zero_stage,
          static_cast<int>(c.recompute)};
}

}  // namespace

TEST_CASE("search: the prune counts and the dividing points add up to the space") {
  const auto base = dsv3();
  const auto o = options_for(base, 512);
  const auto r = run_search(base, o);
  CHECK(r.space_points == space_size(base, default_axes(base, o.axes)));
  CHECK(r.found.pruned.total() + r.found.priced_points == r.space_points);
  CHECK(r.found.dividing_points ==
        r.found.priced_points + r.found.pruned[Prune::Memory] + r.found.pruned[Prune::Headroom]);
  CHECK(r.found.pruned[Prune::TpHeads] > 0);  // 512 has divisors 256 and 512 > 128 heads
  CHECK(r.found.pruned[Prune::Memory] > 0);   // TP = PP = EP = 1 does not hold 671B parameters
  CHECK(r.found.pruned[Prune::MaxGpus] == 0);
  PruneCounts walked;
  int64_t visited = 0;
  enumerate(
      base, default_axes(base, o.axes), o.limits, [&](const Candidate&) { ++visited; }, walked);
  CHECK(visited == r.found.dividing_points);
  CHECK(walked.total() + visited == r.space_points);
}

TEST_CASE("search: the walk lets through exactly the points the scenario validator accepts") {
  // Every point of a reduced space on 16 GPUs, instantiated through the validator.
  auto base = dsv3();
  base.hardware.gpus = 16;
  Axes a;
  a.gpus = {16};
  a.schedules = {Schedule::OneF1B, Schedule::Interleaved1F1B, Schedule::ZB1P, Schedule::DualPipe, Schedule::DualPipeV};
  a.virtual_stages = {2, 4};
  a.micro_batch_seqs = {1, 4};
  a.recompute = {ActivationRecompute::Selective};
  a.zero_stages = {0, 1};
  a.mhc_blocks = {kMhcRecomputeOff};
  const SpaceLimits limits{960, 0};  // 960 = 2^6 x 15: some DP x micro-batch products do not divide it
  std::set<Key> walked;
  PruneCounts pruned;
  enumerate(
      base, a, limits, [&](const Candidate& c) { walked.insert(key_of(c)); }, pruned);
  REQUIRE(!walked.empty());

  scenarios::ScenarioTemplate tpl(text_of("deepseek_v3_train.toml"), "deepseek_v3_train.toml");
  const std::vector<int64_t> d = {1, 2, 4, 8, 16};
  std::set<Key> accepted;
  int64_t points = 0;
  for (const int64_t tp : d)
    for (const int64_t cp : d)
      for (const int64_t pp : d)
        for (const int64_t ep : d)
          for (const Schedule s : a.schedules)
            for (const bool combined : {false, true})  // a MoE model: 1F1B and interleaved also combined
              for (const int64_t v : (s == Schedule::Interleaved1F1B ? a.virtual_stages : std::vector<int64_t>{1}))
                for (const int64_t mbs : a.micro_batch_seqs)
                  for (const bool sp : {false, true})
                    for (const int64_t zero : a.zero_stages) {
                      if (combined && s != Schedule::OneF1B && s != Schedule::Interleaved1F1B) continue;
                      ++points;
                      Candidate c;
                      c.gpus = 16;
                      c.tp = tp, c.cp = cp, c.pp = pp, c.ep = ep, c.schedule = s, c.virtual_stages = v;
                      c.combined_1f1b = combined;
                      c.micro_batch_seqs = mbs, c.sequence_parallel = sp, c.zero_stage = zero;
                      c.recompute = ActivationRecompute::Selective;
                      c.dp = std::max<int64_t>(1, 16 / (tp * cp * pp));
                      c.micro_batches = std::max<int64_t>(1, limits.global_batch_seqs / (c.dp * mbs));
                      std::vector<scenarios::Override> o;
                      for (const auto& kv : overrides(c, limits.global_batch_seqs)) o.push_back({kv.key, kv.value});
                      try {
                        (void)tpl.instantiate(o);
                        accepted.insert(key_of(c));
                      } catch (const InputError&) {}
                    }
  CHECK(points == space_size(base, a));
  CHECK(walked == accepted);
}

TEST_CASE("search: results do not depend on threads or on how the work is split") {
  const auto base = dsv3();
  auto o = narrow_options_for(base, 512);
  o.threads = 1;
  const auto one = run_search(base, o);
  o.threads = 3;
  const auto three = run_search(base, o);
  // Two "ranks" of two threads each, merged in reverse order.
  o.threads = 2;
  Partial split = run_partial(base, o, 1, 2);
  merge(split, run_partial(base, o, 0, 2), o.objective, o.top);
  auto indices = [](const std::vector<Priced>& v) {
    std::vector<int64_t> i;
    for (const auto& p : v) i.push_back(p.index);
    return i;
  };
  for (const Partial* p : {&three.found, static_cast<const Partial*>(&split)}) {
    CHECK(indices(p->top) == indices(one.found.top));
    CHECK(indices(p->memory_front) == indices(one.found.memory_front));
    CHECK(indices(p->gpu_front) == indices(one.found.gpu_front));
    CHECK(p->pruned.points == one.found.pruned.points);
    CHECK(p->priced_points == one.found.priced_points);
  }
}

TEST_CASE("search: top K is ordered by the objective and the fronts are Pareto fronts") {
  const auto base = dsv3();
  auto o = narrow_options_for(base, 256);
  o.axes.gpus = {256, 512};
  o.top = 20;
  for (const Objective obj :
       {Objective::TokensPerSecond, Objective::CostPerToken, Objective::StepTime, Objective::MemoryHeadroom}) {
    o.objective = obj;
    const auto r = run_search(base, o);
    REQUIRE(r.found.top.size() == 20);
    for (size_t i = 1; i < r.found.top.size(); ++i) CHECK(!better(obj, r.found.top[i], r.found.top[i - 1]));
    const auto& mf = r.found.memory_front;
    REQUIRE(!mf.empty());
    for (size_t i = 1; i < mf.size(); ++i) {
      CHECK(mf[i].memory_per_gpu_bytes > mf[i - 1].memory_per_gpu_bytes);
      CHECK(mf[i].tokens_per_s > mf[i - 1].tokens_per_s);
    }
    // Every top-K point is matched or beaten by a front point at no more memory.
    for (const auto& p : r.found.top) {
      bool covered = false;
      for (const auto& f : mf)
        covered = covered || (f.memory_per_gpu_bytes <= p.memory_per_gpu_bytes && f.tokens_per_s >= p.tokens_per_s);
      CHECK(covered);
    }
    const auto& gf = r.found.gpu_front;
    REQUIRE(!gf.empty());
    CHECK(gf.front().candidate.gpus == 256);
    for (size_t i = 1; i < gf.size(); ++i) CHECK(gf[i].tokens_per_s > gf[i - 1].tokens_per_s);
  }
}

TEST_CASE("search: a constraint nothing meets is bad input naming it, with the counts per reason") {
  const auto base = dsv3();
  auto o = options_for(base, 256);
  o.min_headroom_bytes = 79 * kGiB;  // of an 80 GiB H800
  try {
    (void)run_search(base, o);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(e.key() == "--min-headroom-gib");
    const std::string what = e.what();
    CHECK(what.find("headroom ") != std::string::npos);
    CHECK(what.find("memory ") != std::string::npos);
    CHECK(what.find('\n') == std::string::npos);
  }
  o.min_headroom_bytes = 0;
  o.limits.max_gpus = 128;
  CHECK_THROWS_AS(run_search(base, o), InputError);
  CHECK_THROWS_AS(parse_objective("throughput"), InputError);
}

TEST_CASE("search: the best configuration is at least as good as the shipped one at its batch") {
  // DeepSeek-V3 on its 2048 H800 with the report's 15360-sequence batch.
  const auto base = dsv3();
  auto o = options_for(base, 2048);
  REQUIRE(scenario_global_batch(base) == 15360);
  const auto shipped = price(base, candidate_of(base));
  REQUIRE(shipped);
  const auto r = run_search(base, o);  // the whole space, by tokens/s
  REQUIRE(!r.found.top.empty());
  CHECK(!better(o.objective, *shipped, r.found.top.front()));
  CHECK(r.found.top.front().tokens_per_s >= shipped->tokens_per_s);
  // The shipped point is in the space: the walk lets it through.
  PruneCounts ignored;
  bool found = false;
  enumerate(
      base, default_axes(base, o.axes), o.limits,
      [&](const Candidate& c) { found = found || key_of(c) == key_of(candidate_of(base)); }, ignored);
  CHECK(found);
}

TEST_CASE("search: an mHC model gets recompute blocks on its own axis") {
  const auto base = scenarios::load_scenario(kDir + "mhc_27b_h100.toml");
  const auto a = default_axes(base, {});
  CHECK(a.mhc_blocks.size() > 1);
  auto o = narrow_options_for(base, base.hardware.gpus);
  const auto r = run_search(base, o);
  CHECK(r.found.pruned.total() + r.found.priced_points == r.space_points);
  CHECK(!r.found.top.empty());
  o.axes.mhc_blocks = {kMhcRecomputeOff};
  const auto off = run_search(base, o);
  CHECK(r.space_points == off.space_points * static_cast<int64_t>(a.mhc_blocks.size()));
  CHECK(r.found.priced_points > off.found.priced_points);
}

TEST_CASE("search: what separates two candidates, and the validated scenario of one") {
  Candidate a, b;
  b.pp = 2;
  b.zero_stage = 1;
  CHECK(differences(a, b) == "pp 1->2, zero 0->1");
  CHECK(differences(a, a) == "same");
  const auto base = dsv3();
  scenarios::ScenarioTemplate tpl(text_of("deepseek_v3_train.toml"), "deepseek_v3_train.toml");
  const auto r = run_search(base, options_for(base, 256));
  const auto s = confirmed_scenario(tpl, base, r.found.top.front().candidate, scenario_global_batch(base));
  CHECK(candidate_of(s).micro_batches == r.found.top.front().candidate.micro_batches);
  CHECK(differences(candidate_of(s), r.found.top.front().candidate) == "same");
}

TEST_CASE("search: a partial survives the trip through JSON that MPI ranks send to rank 0") {
  const auto base = dsv3();
  const auto p = run_partial(base, narrow_options_for(base, 256), 1, 3);
  const Partial back = partial_from_json(nlohmann::json::parse(to_json(p).dump()));
  CHECK(back.pruned.points == p.pruned.points);
  CHECK(back.priced_points == p.priced_points);
  REQUIRE(back.top.size() == p.top.size());
  for (size_t i = 0; i < p.top.size(); ++i) {
    CHECK(back.top[i].index == p.top[i].index);
    CHECK(back.top[i].tokens_per_s == p.top[i].tokens_per_s);  // exact: doubles round-trip
    CHECK(differences(back.top[i].candidate, p.top[i].candidate) == "same");
  }
  CHECK(back.memory_front.size() == p.memory_front.size());
}

TEST_CASE("search: a layout without SP prices its TP collectives exposed, as its overrides say") {
  // The scenario overlaps TP communication (SP on); the walk also tries SP off at TP 8, which
  // has nothing to overlap: apply() and the pasted overrides must give the same scenario.
  const std::string file = "validation/megatron_core_h100_32b.toml";
  const std::vector<scenarios::Override> half = {{"parallel.tp_overlap", "0.5"}};
  scenarios::ScenarioTemplate tpl(text_of(file), file);
  const Scenario base = tpl.instantiate(half);
  REQUIRE(base.parallel.sequence_parallel);
  Candidate c;
  c.gpus = base.hardware.gpus;
  c.tp = 8, c.cp = 1, c.pp = 1, c.ep = 1, c.dp = base.parallel.dp;
  c.schedule = Schedule::OneF1B, c.virtual_stages = 1;
  c.micro_batch_seqs = 1, c.micro_batches = base.parallel.micro_batches;
  c.zero_stage = 1, c.recompute = ActivationRecompute::None;
  for (const bool sp : {true, false}) {
    INFO("sequence parallel " << sp);
    c.sequence_parallel = sp;
    Scenario applied = base;
    apply(c, applied);
    std::vector<scenarios::Override> o = half;
    for (const auto& kv : overrides(c, scenario_global_batch(base))) o.push_back({kv.key, kv.value});
    const Scenario pasted = tpl.instantiate(o);
    CHECK(applied.parallel.tp_overlap == pasted.parallel.tp_overlap);
    CHECK(applied.parallel.tp_overlap == (sp ? 0.5 : 0.0));
    CHECK(cost::step_estimate(applied).step_seconds == cost::step_estimate(pasted).step_seconds);
  }
}

TEST_CASE("search: a base scenario on combined 1F1B searches every schedule, combined where it can run") {
  // The base's combined 1F1B is one point of the space, not a setting every candidate inherits
  // (DualPipe with combined 1F1B, or EP 1, would be refused).
  const auto base = scenarios::load_scenario(kDir + "deepseek_v3_train.toml", {{"parallel.schedule", "interleaved"},
                                                                               {"parallel.virtual_stages", "2"},
                                                                               {"parallel.micro_batches", "128"},
                                                                               {"parallel.combined_1f1b", "true"}});
  CHECK(candidate_of(base).combined_1f1b);
  auto o = narrow_options_for(base, 256);
  o.top = 2000;
  const auto r = run_search(base, o);
  bool combined = false, dual = false;
  for (const auto& p : r.found.top) {
    combined |= p.candidate.combined_1f1b;
    dual |= p.candidate.schedule == Schedule::DualPipe;
    if (p.candidate.combined_1f1b) CHECK(p.candidate.ep > 1);
  }
  CHECK(combined);
  CHECK(dual);
}

namespace {
// The EPs a DualPipe walk of `base` on `gpus` GPUs lets through, and how many points it cut as
// ep_split.
std::pair<std::set<int64_t>, int64_t> eps_walked(const Scenario& base, int64_t gpus, int64_t global_batch) {
  Axes a;
  a.gpus = {gpus};
  a.schedules = {Schedule::DualPipe};
  a.micro_batch_seqs = {1};
  a.recompute = {ActivationRecompute::Selective};
  a.zero_stages = {1};
  a.mhc_blocks = {kMhcRecomputeOff};
  std::set<int64_t> eps;
  PruneCounts pruned;
  enumerate(
      base, a, SpaceLimits{global_batch, 0}, [&](const Candidate& c) { eps.insert(c.ep); }, pruned);
  return {eps, pruned[Prune::EpSplit]};
}
}  // namespace

// A file's max_nodes_per_token holds at its EP: DeepSeek-V3's 4 nodes route (a group per node) at
// EP 64 over 8 nodes, not at EP 128 (16 experts per node: a group spans 2, a token at least 8
// nodes), where the all-to-all refuses it; the walk prunes those EPs (ep_split) instead of
// failing the search.
TEST_CASE("search: an EP at which the file's max_nodes_per_token cannot be routed is pruned") {
  const auto with = [](int64_t max_nodes) {
    auto base = dsv3();
    base.parallel.max_nodes_per_token = max_nodes;
    return eps_walked(base, 2048, 15360);
  };
  const auto [free_eps, free_cut] = with(0);
  const auto [capped_eps, capped_cut] = with(4);
  CHECK(free_eps.count(128) == 1);
  CHECK(capped_eps.count(64) == 1);
  CHECK(capped_eps.count(128) == 0);
  CHECK(capped_eps.count(256) == 0);
  CHECK(capped_cut > free_cut);
}

// Where the routing's reach (distinct experts) and the fewest nodes (slots with in-group
// replicas) differ, the prune keys on the fewest: EP72 over 9 nodes with 32 replicas reaches 8
// nodes but can be placed to reach 4, so a file's 4 is kept there (SGLang's decode case);
// EP144 cannot go below 8 and is cut.
TEST_CASE("search: the max_nodes_per_token prune keys on the fewest nodes a placement allows") {
  auto base = dsv3();
  base.parallel.redundant_experts = 32;
  base.parallel.max_nodes_per_token = 4;
  const auto eps = eps_walked(base, 1152, 20736).first;
  CHECK(eps.count(72) == 1);
  CHECK(eps.count(144) == 0);
}
