#include "mhcsim/search/distributed.h"

#include <string>
#include <vector>

#ifdef MHCSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace mhcsim::search {
namespace {

nlohmann::json priced_json(const Priced& p) {
  const Candidate& c = p.candidate;
  return {p.index,
          c.gpus,
          c.tp,
          c.cp,
          c.pp,
          c.dp,
          c.ep,
          static_cast<int>(c.schedule),
          c.virtual_stages,
          c.combined_1f1b,
          c.micro_batch_seqs,
          c.micro_batches,
          c.sequence_parallel,
          c.zero_stage,
          static_cast<int>(c.recompute),
          c.mhc_block,
          p.step_time_s,
          p.tokens_per_s,
          p.memory_per_gpu_bytes,
          p.headroom_bytes,
          p.mfu,
          p.gpu_seconds_per_token,
          p.gpu_hours_for_budget};
}

Priced priced_from(const nlohmann::json& j) {
  Priced p;
  Candidate& c = p.candidate;
  size_t i = 0;
  auto next = [&]() -> const nlohmann::json& { return j.at(i++); };
  p.index = next().get<int64_t>();
  for (int64_t* v : {&c.gpus, &c.tp, &c.cp, &c.pp, &c.dp, &c.ep}) *v = next().get<int64_t>();
  c.schedule = static_cast<Schedule>(next().get<int>());
  c.virtual_stages = next().get<int64_t>();
  c.combined_1f1b = next().get<bool>();
  for (int64_t* v : {&c.micro_batch_seqs, &c.micro_batches}) *v = next().get<int64_t>();
  c.sequence_parallel = next().get<bool>();
  c.zero_stage = next().get<int64_t>();
  c.recompute = static_cast<ActivationRecompute>(next().get<int>());
  c.mhc_block = next().get<int64_t>();
  for (double* v : {&p.step_time_s, &p.tokens_per_s, &p.memory_per_gpu_bytes, &p.headroom_bytes, &p.mfu,
                    &p.gpu_seconds_per_token, &p.gpu_hours_for_budget})
    *v = next().get<double>();
  return p;
}

nlohmann::json list_json(const std::vector<Priced>& v) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& p : v) a.push_back(priced_json(p));
  return a;
}

std::vector<Priced> list_from(const nlohmann::json& a) {
  std::vector<Priced> v;
  for (const auto& j : a) v.push_back(priced_from(j));
  return v;
}

}  // namespace

nlohmann::json to_json(const Partial& p) {
  return {
      {"pruned", p.pruned.points}, {"dividing_points", p.dividing_points},      {"priced_points", p.priced_points},
      {"top", list_json(p.top)},   {"memory_front", list_json(p.memory_front)}, {"gpu_front", list_json(p.gpu_front)}};
}

Partial partial_from_json(const nlohmann::json& j) {
  Partial p;
  p.pruned.points = j.at("pruned").get<std::array<int64_t, kPruneReasons>>();
  p.dividing_points = j.at("dividing_points").get<int64_t>();
  p.priced_points = j.at("priced_points").get<int64_t>();
  p.top = list_from(j.at("top"));
  p.memory_front = list_from(j.at("memory_front"));
  p.gpu_front = list_from(j.at("gpu_front"));
  return p;
}

std::optional<SearchResult> run_search_on_ranks(const Scenario& base, SearchOptions o, const Ranks& r) {
  if (r.size <= 1) return run_search(base, o);
  if (r.rank != 0) o.progress = nullptr;
  SearchResult result;
  result.objective = o.objective;
  result.global_batch_seqs = o.limits.global_batch_seqs;
  result.space_points = space_size(base, default_axes(base, o.axes));
  result.found = gather(run_partial(base, o, r.rank, r.size), o.objective, o.top, r);
  if (r.rank != 0) return std::nullopt;
  require_ranked(result, o);
  return result;
}

Partial gather(const Partial& mine, Objective o, int64_t top, const Ranks& r) {
  if (r.size <= 1) return mine;
#ifdef MHCSIM_HAVE_MPI
  const std::string text = to_json(mine).dump();
  int length = static_cast<int>(text.size());
  std::vector<int> lengths(static_cast<size_t>(r.size)), offsets(static_cast<size_t>(r.size));
  MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string all;
  if (r.rank == 0) {
    int total = 0;
    for (size_t i = 0; i < lengths.size(); ++i) {
      offsets[i] = total;
      total += lengths[i];
    }
    all.resize(static_cast<size_t>(total));
  }
  MPI_Gatherv(text.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR, 0, MPI_COMM_WORLD);
  if (r.rank != 0) return mine;
  Partial merged;
  for (size_t i = 0; i < lengths.size(); ++i)
    merge(merged,
          partial_from_json(
              nlohmann::json::parse(all.substr(static_cast<size_t>(offsets[i]), static_cast<size_t>(lengths[i])))),
          o, top);
  return merged;
#else
  (void)o;
  (void)top;
  return mine;
#endif
}

}  // namespace mhcsim::search
