#include "mhcsim/sweep/sweep.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "mhcsim/error.h"

namespace mhcsim::sweep {
namespace {

using Clock = std::chrono::steady_clock;

// The bounded queue between the workers and the sink: block b waits in slot b % window until
// the sink takes it, and no worker starts block b before the sink has taken block b - window.
struct Shared {
  Shared(scenarios::ScenarioTemplate& s, const Grid& g, const Evaluator& e,
         const std::vector<std::vector<int>>& h, int64_t block, int64_t window)
      : scenario(s), grid(g), evaluator(e), handles(h), block_points(block),
        blocks((g.size() + block - 1) / block), slots(static_cast<size_t>(window)),
        slot_block(static_cast<size_t>(window), -1) {}
  scenarios::ScenarioTemplate& scenario;
  const Grid& grid;
  const Evaluator& evaluator;
  const std::vector<std::vector<int>>& handles;  // [axis][value] -> prepared override
  const int64_t block_points;
  const int64_t blocks;
  std::atomic<int64_t> next{0};  // next block a worker takes
  std::atomic<int64_t> done{0};  // points evaluated
  std::mutex mutex;
  std::condition_variable ready, free;
  std::vector<SweepResult> slots;
  std::vector<int64_t> slot_block;  // the block each slot holds, -1: empty
  int64_t taken = 0;                // blocks the sink has taken
  bool stop = false;
  std::exception_ptr error;

  int64_t window() const { return static_cast<int64_t>(slots.size()); }
  void fail(std::exception_ptr e) {
    const std::lock_guard<std::mutex> lock(mutex);
    if (!error) error = std::move(e);
    stop = true;
    ready.notify_all();
    free.notify_all();
  }
};

SweepResult empty_block(const Shared& sh, int64_t points) {
  SweepResult r;
  r.axes = sh.grid.axes();
  r.metrics = sh.evaluator.metrics;
  r.points = points;
  const auto n = static_cast<size_t>(points);
  r.value_index.assign(n * r.axes.size(), 0);
  r.values.assign(n * r.metrics.size(), std::nan(""));
  r.reasons.assign(n, std::string());
  return r;
}

void evaluate_point(Shared& sh, SweepResult& r, int64_t p, int64_t row, std::vector<int32_t>& idx,
                    std::vector<int>& chosen) {
  sh.grid.indices(p, idx);
  const auto at = static_cast<size_t>(row);
  for (size_t a = 0; a < idx.size(); ++a) {
    chosen[a] = sh.handles[a][static_cast<size_t>(idx[a])];
    r.value_index[at * idx.size() + a] = idx[a];
  }
  const size_t m = r.metrics.size();
  std::string& reason = r.reasons[at];
  try {
    Evaluation e = sh.evaluator.evaluate(sh.scenario.instantiate(chosen));
    for (size_t k = 0; k < m && k < e.values.size(); ++k) r.values[at * m + k] = e.values[k];
    reason = std::move(e.infeasible_reason);
  } catch (const InputError& e) {  // invalid parallelism, impossible spec: kept with its reason
    reason = e.what();
  }
}

void worker(Shared& sh) {
  std::vector<int32_t> idx;
  std::vector<int> chosen(sh.grid.axes().size());
  try {
    for (int64_t b; (b = sh.next.fetch_add(1)) < sh.blocks;) {
      {
        std::unique_lock<std::mutex> lock(sh.mutex);
        sh.free.wait(lock, [&] { return sh.stop || b < sh.taken + sh.window(); });
        if (sh.stop) return;
      }
      const int64_t begin = b * sh.block_points, end = std::min(sh.grid.size(), begin + sh.block_points);
      SweepResult block = empty_block(sh, end - begin);
      for (int64_t p = begin; p < end; ++p) evaluate_point(sh, block, p, p - begin, idx, chosen);
      sh.done.fetch_add(end - begin);
      const std::lock_guard<std::mutex> lock(sh.mutex);
      const auto slot = static_cast<size_t>(b % sh.window());
      sh.slots[slot] = std::move(block);
      sh.slot_block[slot] = b;
      sh.ready.notify_all();
    }
  } catch (...) {
    sh.fail(std::current_exception());
  }
}

// Starts the workers. When the OS refuses a thread (address space or process limits), the ones
// already started are stopped and joined before the error leaves: a joinable std::thread
// destroyed by the unwinding would call std::terminate.
std::vector<std::thread> start_workers(Shared& sh, int threads) {
  std::vector<std::thread> pool;
  int t = 0;
  try {
    for (; t < threads; ++t) pool.emplace_back(worker, std::ref(sh));
  } catch (const std::system_error& e) {
    sh.fail(nullptr);
    for (auto& started : pool) started.join();
    throw InputError("--jobs", fmt::format("cannot run {} threads: the system refused to start thread {} ({}); "
                                           "expected fewer, e.g. -j {}", threads, t + 1, e.code().message(),
                                           std::max(1, t / 2)));
  }
  return pool;
}

// The sink's side: takes the blocks in order, drawing progress about every 100 ms.
void drain(Shared& sh, const SweepOptions& options, const BlockSink& sink) {
  auto last_draw = Clock::now();
  for (int64_t b = 0; b < sh.blocks; ++b) {
    SweepResult block;
    {
      std::unique_lock<std::mutex> lock(sh.mutex);
      const auto slot = static_cast<size_t>(b % sh.window());
      while (!sh.stop && sh.slot_block[slot] != b) {
        sh.ready.wait_for(lock, std::chrono::milliseconds(100));
        if (options.progress && Clock::now() - last_draw >= std::chrono::milliseconds(100)) {
          lock.unlock();
          options.progress(sh.done.load(), sh.grid.size());
          last_draw = Clock::now();
          lock.lock();
        }
      }
      if (sh.stop) return;
      block = std::move(sh.slots[slot]);
      sh.slot_block[slot] = -1;
      sh.taken = b + 1;
      sh.free.notify_all();
    }
    sink(block, b * sh.block_points);
  }
}

}  // namespace

int64_t SweepResult::feasible_count() const {
  int64_t n = 0;
  for (const auto& r : reasons) n += r.empty();
  return n;
}

void stream_sweep(scenarios::ScenarioTemplate& scenario, const Grid& grid, const Evaluator& evaluator,
                  const SweepOptions& options, const BlockSink& sink, const StreamOptions& stream) {
  // Every value is parsed once, before the threads start (prepare is not thread-safe).
  std::vector<std::vector<int>> handles;
  for (const auto& axis : grid.axes()) {
    auto& h = handles.emplace_back();
    for (const auto& v : axis.values) h.push_back(scenario.prepare({axis.key, v}));
  }
  const int threads = options.threads > 0 ? options.threads
                                          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  const int64_t block = std::max<int64_t>(1, stream.block_points);
  const int64_t window = stream.window_blocks > 0 ? stream.window_blocks : 4 * int64_t{threads};
  Shared sh(scenario, grid, evaluator, handles, block, window);
  std::vector<std::thread> pool = start_workers(sh, threads);
  try {
    drain(sh, options, sink);
  } catch (...) {
    sh.fail(std::current_exception());
  }
  for (auto& t : pool) t.join();
  if (sh.error) std::rethrow_exception(sh.error);
  if (options.progress) options.progress(grid.size(), grid.size());
}

SweepResult run_sweep(scenarios::ScenarioTemplate& scenario, const Grid& grid,
                      const Evaluator& evaluator, const SweepOptions& options) {
  SweepResult r;
  r.axes = grid.axes();
  r.metrics = evaluator.metrics;
  r.points = grid.size();
  const auto n = static_cast<size_t>(r.points);
  r.value_index.reserve(n * r.axes.size());
  r.values.reserve(n * r.metrics.size());
  r.reasons.reserve(n);
  stream_sweep(scenario, grid, evaluator, options, [&](const SweepResult& b, int64_t) {
    r.value_index.insert(r.value_index.end(), b.value_index.begin(), b.value_index.end());
    r.values.insert(r.values.end(), b.values.begin(), b.values.end());
    r.reasons.insert(r.reasons.end(), b.reasons.begin(), b.reasons.end());
  });
  return r;
}

}  // namespace mhcsim::sweep
