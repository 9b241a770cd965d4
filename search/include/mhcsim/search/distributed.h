#pragma once
// Searches spread over MPI ranks (`mpirun -n R mhcsim search ...`): every rank walks the whole
// space and prices its share of chunks (run_partial with worker = rank), rank 0 gathers the
// partials and merges them, so it prints and writes what one process would, byte for byte.
// Without mpirun, or in a build without MPI, there is one rank and nothing changes.
#include <optional>

#include <nlohmann/json.hpp>

#include "mhcsim/search/search.h"
#include "mhcsim/sweep/mpi.h"

namespace mhcsim::search {

using sweep::mpi_ranks;
using sweep::Ranks;  // sweep/mpi.h: which rank this process is

// The partial as JSON and back (doubles round-trip exactly), for the gather.
nlohmann::json to_json(const Partial& p);
Partial partial_from_json(const nlohmann::json& j);

// run_search over the ranks: the result on rank 0 (InputError there when nothing is ranked),
// nullopt on the others, which print and write nothing. One rank: run_search.
std::optional<SearchResult> run_search_on_ranks(const Scenario& base, SearchOptions o, const Ranks& r);

// Rank 0: every rank's partial merged (its own included). Other ranks: their own, unmerged.
Partial gather(const Partial& mine, Objective o, int64_t top, const Ranks& r);

}  // namespace mhcsim::search
