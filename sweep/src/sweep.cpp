#include "mhcsim/sweep/sweep.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "mhcsim/error.h"

namespace mhcsim::sweep {
namespace {

constexpr int64_t kChunk = 256;  // points a worker takes at once: few atomics, even load

struct Shared {
  Shared(scenarios::ScenarioTemplate& s, const Grid& g, const Evaluator& e,
         const std::vector<std::vector<int>>& h, SweepResult& r)
      : scenario(s), grid(g), evaluator(e), handles(h), result(r) {}
  scenarios::ScenarioTemplate& scenario;
  const Grid& grid;
  const Evaluator& evaluator;
  const std::vector<std::vector<int>>& handles;  // [axis][value] -> prepared override
  SweepResult& result;
  std::atomic<int64_t> next{0};
  std::atomic<int64_t> done{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  std::atomic<bool> failed{false};
};

void evaluate_point(Shared& sh, int64_t p, std::vector<int32_t>& idx, std::vector<int>& chosen) {
  auto& r = sh.result;
  sh.grid.indices(p, idx);
  for (size_t a = 0; a < idx.size(); ++a) {
    chosen[a] = sh.handles[a][static_cast<size_t>(idx[a])];
    r.value_index[static_cast<size_t>(p) * idx.size() + a] = idx[a];
  }
  const size_t m = r.metrics.size();
  std::string& reason = r.reasons[static_cast<size_t>(p)];
  try {
    Evaluation e = sh.evaluator.evaluate(sh.scenario.instantiate(chosen));
    for (size_t k = 0; k < m && k < e.values.size(); ++k) r.values[static_cast<size_t>(p) * m + k] = e.values[k];
    reason = std::move(e.infeasible_reason);
  } catch (const InputError& e) {  // invalid parallelism, impossible spec: kept with its reason
    reason = e.what();
  }
}

void worker(Shared& sh) {
  std::vector<int32_t> idx;
  std::vector<int> chosen(sh.grid.axes().size());
  const int64_t n = sh.grid.size();
  try {
    for (int64_t begin; (begin = sh.next.fetch_add(kChunk)) < n;) {
      const int64_t end = std::min(n, begin + kChunk);
      for (int64_t p = begin; p < end; ++p) evaluate_point(sh, p, idx, chosen);
      sh.done.fetch_add(end - begin);
    }
  } catch (...) {
    const std::lock_guard<std::mutex> lock(sh.error_mutex);
    if (!sh.error) sh.error = std::current_exception();
    sh.next.store(n);  // stop the other workers
    sh.failed.store(true);
  }
}

// Starts workers first..threads-1 (thread 0 may be the caller). When the OS refuses a thread
// (address space or process limits), the ones already started are stopped and joined before
// the error leaves: a joinable std::thread destroyed by the unwinding would call
// std::terminate.
std::vector<std::thread> start_workers(Shared& sh, int first, int threads) {
  std::vector<std::thread> pool;
  int t = first;
  try {
    for (; t < threads; ++t) pool.emplace_back(worker, std::ref(sh));
  } catch (const std::system_error& e) {
    sh.next.store(sh.grid.size());  // no more points for the running workers
    for (auto& started : pool) started.join();
    throw InputError("--jobs", fmt::format("cannot run {} threads: the system refused to start thread {} ({}); "
                                           "expected fewer, e.g. -j {}", threads, t + 1, e.code().message(),
                                           std::max(1, t / 2)));
  }
  return pool;
}

}  // namespace

int64_t SweepResult::feasible_count() const {
  int64_t n = 0;
  for (const auto& r : reasons) n += r.empty();
  return n;
}

SweepResult run_sweep(scenarios::ScenarioTemplate& scenario, const Grid& grid,
                      const Evaluator& evaluator, const SweepOptions& options) {
  SweepResult r;
  r.axes = grid.axes();
  r.metrics = evaluator.metrics;
  r.points = grid.size();
  const auto n = static_cast<size_t>(r.points);
  r.value_index.assign(n * r.axes.size(), 0);
  r.values.assign(n * r.metrics.size(), std::nan(""));
  r.reasons.assign(n, std::string());

  // Every value is parsed once, before the threads start (prepare is not thread-safe).
  std::vector<std::vector<int>> handles;
  for (const auto& axis : grid.axes()) {
    auto& h = handles.emplace_back();
    for (const auto& v : axis.values) h.push_back(scenario.prepare({axis.key, v}));
  }

  Shared sh(scenario, grid, evaluator, handles, r);
  const int threads = options.threads > 0 ? options.threads
                                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // With a progress callback the calling thread only draws; otherwise it works too.
  std::vector<std::thread> pool = start_workers(sh, options.progress ? 0 : 1, threads);
  if (options.progress) {
    while (sh.done.load() < r.points && !sh.failed.load()) {
      options.progress(sh.done.load(), r.points);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  } else {
    worker(sh);
  }
  for (auto& t : pool) t.join();
  if (sh.error) std::rethrow_exception(sh.error);
  if (options.progress) options.progress(r.points, r.points);
  return r;
}

}  // namespace mhcsim::sweep
