#include "mhcsim/sweep/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <ostream>

namespace mhcsim::sweep {

bool progress_wanted() { return ::isatty(STDERR_FILENO) && std::getenv("CI") == nullptr; }

void draw_progress(std::ostream& err, int64_t done, int64_t total, const char* unit) {
  constexpr int kWidth = 30;
  const double frac = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  const int filled = static_cast<int>(frac * kWidth);
  err << fmt::format("\r[{}{}] {:3.0f}%  {}/{} {}", std::string(static_cast<size_t>(filled), '#'),
                     std::string(static_cast<size_t>(kWidth - filled), '-'), 100 * frac, done, total, unit)
      << (done >= total ? "\n" : "") << std::flush;
}

}  // namespace mhcsim::sweep
