#include "mhcsim/sweep/progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <memory>
#include <ostream>
#include <string>

namespace mhcsim::sweep {

namespace {

using Clock = std::chrono::steady_clock;

double fraction(int64_t done, int64_t total) {
  return total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
}

// "\r[#######-------------]  35%  350000/1000000 points"; a newline once done == total.
void draw_bar(std::ostream& err, int64_t done, int64_t total, const char* unit) {
  constexpr int kWidth = 30;
  const double frac = fraction(done, total);
  const int filled = static_cast<int>(frac * kWidth);
  err << fmt::format("\r[{}{}] {:3.0f}%  {}/{} {}", std::string(static_cast<size_t>(filled), '#'),
                     std::string(static_cast<size_t>(kWidth - filled), '-'), 100 * frac, done, total, unit)
      << (done >= total ? "\n" : "") << std::flush;
}

}  // namespace

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) && std::getenv("CI") == nullptr; }

std::function<void(int64_t, int64_t)> progress_reporter(std::ostream& err, bool to_terminal, const char* verb,
                                                        const char* unit, std::chrono::milliseconds log_interval) {
  if (to_terminal) return [&err, unit](int64_t done, int64_t total) { draw_bar(err, done, total, unit); };
  // Shared so the copies std::function makes keep one clock.
  struct Log {
    Clock::time_point start = Clock::now(), last = start;
    bool wrote = false, finished = false;
  };
  auto log = std::make_shared<Log>();
  return [&err, verb, unit, log_interval, log](int64_t done, int64_t total) {
    const auto now = Clock::now();
    const bool end = done >= total;
    // The closing line only where a line was written before: a short run stays silent.
    if (log->finished || (end ? !log->wrote : now - log->last < log_interval)) return;
    const auto elapsed_s = std::chrono::duration<double>(now - log->start).count();
    err << fmt::format("{}: {:.0f}% ({}/{} {}) after {:.0f} s\n", verb, 100 * fraction(done, total), done, total, unit,
                       elapsed_s)
        << std::flush;
    log->last = now;
    log->wrote = true;
    log->finished = end;
  };
}

}  // namespace mhcsim::sweep
