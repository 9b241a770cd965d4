#pragma once
// The points of a what-if sweep: the cross product of `--sweep key=a,b,c` axes, numbered in
// row-major order (the last axis varies fastest), so point i means the same configuration
// whatever the number of threads.
#include <cstdint>
#include <string>
#include <vector>

#include "mhcsim/scenarios/load.h"

namespace mhcsim::sweep {

struct SweepAxis {
  std::string key;                  // scenario key, e.g. "parallel.pp"
  std::vector<std::string> values;  // TOML values as --set reads them
};

// "parallel.pp=8,16,32" -> {parallel.pp, {8, 16, 32}}. Throws InputError("--sweep", ...) for
// a missing '=', an empty value or a repeated value.
SweepAxis parse_sweep_axis(const std::string& text);

class Grid {
 public:
  // Throws InputError("--sweep", ...) for a key swept twice or more than kMaxPoints points.
  explicit Grid(std::vector<SweepAxis> axes);
  // Throws InputError("--sweep", ...) when an axis sweeps a key the user also set: the sweep's
  // values replaced the --set one without a word.
  void require_unset(const std::vector<scenarios::Override>& overrides) const;
  static constexpr int64_t kMaxPoints = int64_t{1} << 31;

  int64_t size() const { return size_; }
  const std::vector<SweepAxis>& axes() const { return axes_; }
  // Value index along each axis of point `point` (out.size() == axes().size()).
  void indices(int64_t point, std::vector<int32_t>& out) const;

 private:
  std::vector<SweepAxis> axes_;
  int64_t size_ = 1;
};

}  // namespace mhcsim::sweep
