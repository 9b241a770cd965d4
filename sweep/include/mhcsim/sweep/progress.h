#pragma once
// A progress bar on stderr for long sweeps, only when a person is watching: stderr is a
// terminal and CI is unset. Piped and CI runs stay clean.
#include <cstdint>
#include <iosfwd>

namespace mhcsim::sweep {

bool progress_wanted();  // isatty(stderr) && getenv("CI") unset

// "\r[#######-------------]  35%  350000/1000000 points"; a newline once done == total.
void draw_progress(std::ostream& err, int64_t done, int64_t total, const char* unit = "points");

}  // namespace mhcsim::sweep
