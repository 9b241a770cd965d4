#include "mhcsim/sweep/grid.h"

#include <fmt/format.h>

#include <algorithm>

#include "mhcsim/error.h"
#include "mhcsim/scenarios/load.h"

namespace mhcsim::sweep {

SweepAxis parse_sweep_axis(const std::string& text) {
  if (text.find_first_of("\r\n") != std::string::npos)  // TOML would read a second key
    throw InputError("--sweep", fmt::format("{:?} holds a line break (expected one key=a,b,c per --sweep)", text));
  const auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw InputError("--sweep", fmt::format("'{}' is not key=a,b,c (e.g. parallel.pp=8,16,32)", text));
  SweepAxis axis{text.substr(0, eq), {}};
  std::string rest = text.substr(eq + 1);
  for (size_t start = 0;;) {
    const size_t comma = rest.find(',', start);
    std::string v = rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (v.empty()) throw InputError("--sweep", fmt::format("'{}': empty value (expected a,b,c)", text));
    if (std::find(axis.values.begin(), axis.values.end(), v) != axis.values.end())
      throw InputError("--sweep", fmt::format("'{}': value '{}' given twice", text, v));
    axis.values.push_back(std::move(v));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return axis;
}

Grid::Grid(std::vector<SweepAxis> axes) : axes_(std::move(axes)) {
  for (size_t a = 0; a < axes_.size(); ++a) {
    for (size_t b = 0; b < a; ++b)
      if (axes_[a].key == axes_[b].key)
        throw InputError("--sweep",
                         fmt::format("{} is swept twice (give all its values in one --sweep)", axes_[a].key));
    const auto n = static_cast<int64_t>(axes_[a].values.size());
    if (n == 0) throw InputError("--sweep", fmt::format("{}: no values", axes_[a].key));
    // A value wrong whatever the other axes say (a word for an integer, a PP of 0, an unknown
    // schedule) is bad input, not a point that does not fit: one line, before any work (and on
    // every MPI rank alike).
    for (const auto& v : axes_[a].values) {
      std::string why;
      try {
        why = scenarios::standalone_value_problem(axes_[a].key, v);
      } catch (const InputError& e) {  // an unknown key: name the flag it came from
        throw InputError("--sweep", fmt::format("{}: {}", axes_[a].key, e.reason()));
      }
      if (!why.empty()) throw InputError("--sweep", fmt::format("{}={}: {}", axes_[a].key, v, why));
    }
    if (size_ > kMaxPoints / n)
      throw InputError("--sweep", fmt::format("more than {} points (expected a smaller cross product)", kMaxPoints));
    size_ *= n;
  }
}

void Grid::indices(int64_t point, std::vector<int32_t>& out) const {
  out.resize(axes_.size());
  for (size_t a = axes_.size(); a-- > 0;) {
    const auto n = static_cast<int64_t>(axes_[a].values.size());
    out[a] = static_cast<int32_t>(point % n);
    point /= n;
  }
}

void Grid::require_unset(const std::vector<scenarios::Override>& overrides) const {
  for (const auto& a : axes_)
    if (std::any_of(overrides.begin(), overrides.end(), [&](const scenarios::Override& o) { return o.key == a.key; }))
      throw InputError("--sweep",
                       fmt::format("{} is both swept and given with --set (expected one or the other)", a.key));
}

}  // namespace mhcsim::sweep
