#pragma once
// `mhcsim search --report DIR`: the search as a report (reports/ writers: HTML and Markdown
// with SVG plots and their CSV data): the best configuration against the shipped one, the top
// K, the two Pareto fronts (throughput against memory per GPU and against GPUs) and the points
// cut per reason.
#include <optional>

#include "mhcsim/reports/document.h"
#include "mhcsim/search/output.h"

namespace mhcsim::search {

// `top` is top_table's rendering of r.found.top; `shipped` the scenario's own configuration
// when it runs a searched size at the same batch.
reports::Document search_report(const Scenario& base, const SearchResult& r, const reports::Table& top,
                                const std::optional<Priced>& shipped);

}  // namespace mhcsim::search
