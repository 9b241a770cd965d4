#include "mhcsim/threads.h"

#include <fmt/format.h>

#include <algorithm>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "mhcsim/error.h"

namespace mhcsim {

int default_threads(int asked) {
  return asked > 0 ? asked : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void run_threads(int threads, const std::function<void(int)>& body, const ThreadsOptions& options) {
  std::atomic<int> running{threads};
  std::mutex mutex;
  std::exception_ptr first;
  const auto fail = [&](std::exception_ptr e) {
    {
      const std::lock_guard<std::mutex> lock(mutex);
      if (first) return;
      first = std::move(e);
    }
    if (options.stop) options.stop();
  };
  const auto run = [&](int t) {
    try {
      body(t);
    } catch (...) {
      fail(std::current_exception());
    }
    running.fetch_sub(1);
  };
  const int own = options.meanwhile ? 0 : 1;  // bodies the calling thread runs
  std::vector<std::thread> pool;
  pool.reserve(static_cast<size_t>(std::max(0, threads - own)));
  int t = own;
  try {
    for (; t < threads; ++t) pool.emplace_back(run, t);
  } catch (const std::system_error& e) {
    if (options.stop) options.stop();
    for (auto& started : pool) started.join();
    throw InputError(options.option,
                     fmt::format("cannot run {} threads: the system refused to start thread {} ({}); expected fewer, "
                                 "e.g. {} {}",
                                 threads, t + 1, e.code().message(), options.option, std::max(1, t / 2)));
  }
  try {
    if (options.meanwhile)
      options.meanwhile(running);
    else if (threads > 0)
      run(0);
  } catch (...) {
    fail(std::current_exception());
  }
  for (auto& started : pool) started.join();
  if (first) std::rethrow_exception(first);
}

}  // namespace mhcsim
