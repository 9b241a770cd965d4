#pragma once
// Progress of a long sweep or search on stderr. A person at a terminal sees a bar redrawn in
// place; a log (piped stderr, CI, a batch job) gets a plain line at most every 10 s, so a run
// that ends sooner writes nothing and an hours-long one shows it is alive without flooding.
#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>

namespace mhcsim::sweep {

// The reporter for `err`: a bar when `to_terminal` (see stderr_is_terminal), else lines prefixed
// with `verb`, one per `log_interval` at most. `unit` names what is counted ("points").
std::function<void(int64_t done, int64_t total)> progress_reporter(
    std::ostream& err, bool to_terminal, const char* verb, const char* unit = "points",
    std::chrono::milliseconds log_interval = std::chrono::seconds(10));

bool stderr_is_terminal();  // isatty(stderr) && getenv("CI") unset: CI logs get lines, not a bar

}  // namespace mhcsim::sweep
