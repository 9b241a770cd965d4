#pragma once
// The one way mhcsim runs work on threads (sweep's blocks, search's shares, serve's splits):
// the first exception of any thread leaves after all of them joined, the others are told to
// stop, and a thread the system refuses is an input error naming the thread count's option
// rather than std::terminate (a joinable std::thread destroyed by the unwinding).
#include <atomic>
#include <functional>
#include <string>

namespace mhcsim {

// The most threads -j / jobs may ask for.
inline constexpr int kMaxThreads = 4096;

// `asked` threads, or with 0 one per core (at least one).
int default_threads(int asked);

struct ThreadsOptions {
  std::string option = "--jobs";  // names the thread count in the error when the system refuses one
  // Runs on the calling thread while the bodies run on threads of their own, with the count of
  // bodies not yet returned; without it the calling thread runs body(0).
  std::function<void(const std::atomic<int>& running)> meanwhile;
  // Called once, at the first exception or refused thread, so that the others return early.
  std::function<void()> stop;
};

// Runs body(t) for t in [0, threads) on `threads` threads (the calling one included unless
// `meanwhile` is given) and returns when all have returned; rethrows the first exception. When
// the system refuses a thread (address-space or process limits), those started are stopped and
// joined, then InputError(option, "cannot run N threads: ...").
void run_threads(int threads, const std::function<void(int)>& body, const ThreadsOptions& options = {});

}  // namespace mhcsim
