#include "mhcsim/sweep/sweep.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <stdexcept>
#include <mutex>

#include <fmt/format.h>

#include "mhcsim/error.h"
#include "mhcsim/interrupt.h"
#include "mhcsim/threads.h"

namespace mhcsim::sweep {
namespace {

using Clock = std::chrono::steady_clock;

// The bounded queue between the workers and the sink: block b waits in slot b % window until
// the sink takes it, and no worker starts block b before the sink has taken block b - window.
struct Shared {
  Shared(scenarios::ScenarioTemplate& s, const Grid& g, const Evaluator& e, const std::vector<std::vector<int>>& h,
         int64_t block, int64_t window, Ranks r)
      : scenario(s),
        grid(g),
        evaluator(e),
        handles(h),
        block_points(block),
        blocks((g.size() + block - 1) / block),
        ranks(r),
        my_blocks(blocks > r.rank ? (blocks - r.rank + r.size - 1) / r.size : 0),
        slots(static_cast<size_t>(window)),
        slot_block(static_cast<size_t>(window), -1) {}
  scenarios::ScenarioTemplate& scenario;
  const Grid& grid;
  const Evaluator& evaluator;
  const std::vector<std::vector<int>>& handles;  // [axis][value] -> prepared override
  const int64_t block_points;
  const int64_t blocks;
  const Ranks ranks;             // this rank evaluates blocks rank, rank + size, ...
  const int64_t my_blocks;       // how many: the k-th is block rank + k x size
  std::atomic<int64_t> next{0};  // next of this rank's blocks (k) a worker takes
  std::atomic<int64_t> done{0};  // points evaluated
  std::mutex mutex;
  std::condition_variable ready, free;
  std::vector<SweepResult> slots;
  std::vector<int64_t> slot_block;  // this rank's block (k) each slot holds, -1: empty
  int64_t taken = 0;                // of this rank's blocks, how many the sink has taken
  bool stop = false;

  int64_t window() const { return static_cast<int64_t>(slots.size()); }
  // At the first error (run_threads keeps it): the workers and the sink stop waiting.
  void halt() {
    const std::lock_guard<std::mutex> lock(mutex);
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
  for (int64_t k; (k = sh.next.fetch_add(1)) < sh.my_blocks;) {
    {
      std::unique_lock<std::mutex> lock(sh.mutex);
      sh.free.wait(lock, [&] { return sh.stop || k < sh.taken + sh.window(); });
      if (sh.stop) return;
    }
    throw_if_interrupted();  // between blocks: a block is milliseconds
    const int64_t b = sh.ranks.rank + k * sh.ranks.size;
    const int64_t begin = b * sh.block_points, end = std::min(sh.grid.size(), begin + sh.block_points);
    SweepResult block = empty_block(sh, end - begin);
    for (int64_t p = begin; p < end; ++p) evaluate_point(sh, block, p, p - begin, idx, chosen);
    sh.done.fetch_add(end - begin);
    const std::lock_guard<std::mutex> lock(sh.mutex);
    const auto slot = static_cast<size_t>(k % sh.window());
    sh.slots[slot] = std::move(block);
    sh.slot_block[slot] = k;
    sh.ready.notify_all();
  }
}

// A block as bytes for another rank (doubles bit for bit) and back.
std::string to_bytes(const SweepResult& b) {
  std::string out;
  auto put = [&](const void* p, size_t n) { out.append(static_cast<const char*>(p), n); };
  put(&b.points, sizeof b.points);
  put(b.value_index.data(), b.value_index.size() * sizeof(int32_t));
  put(b.values.data(), b.values.size() * sizeof(double));
  for (const auto& r : b.reasons) {
    const auto n = static_cast<uint32_t>(r.size());
    put(&n, sizeof n);
    put(r.data(), r.size());
  }
  return out;
}

SweepResult from_bytes(const Shared& sh, const std::string& in) {
  size_t at = 0;
  auto get = [&](void* p, size_t n) {
    if (at + n > in.size()) throw std::runtime_error("sweep: a block from another rank is cut short");
    std::memcpy(p, in.data() + at, n);
    at += n;
  };
  int64_t points = 0;
  get(&points, sizeof points);
  SweepResult b = empty_block(sh, points);
  get(b.value_index.data(), b.value_index.size() * sizeof(int32_t));
  get(b.values.data(), b.values.size() * sizeof(double));
  for (auto& r : b.reasons) {
    uint32_t n = 0;
    get(&n, sizeof n);
    r.resize(n);
    get(r.data(), n);
  }
  return b;
}

// Takes this rank's k-th block from its slot once a worker has put it there, drawing progress
// about every 100 ms while it waits. False when the sweep stopped.
bool take(Shared& sh, int64_t k, const SweepOptions& options, Clock::time_point& last_draw, SweepResult& out) {
  std::unique_lock<std::mutex> lock(sh.mutex);
  const auto slot = static_cast<size_t>(k % sh.window());
  while (!sh.stop && sh.slot_block[slot] != k) {
    sh.ready.wait_for(lock, std::chrono::milliseconds(100));
    if (options.progress && Clock::now() - last_draw >= std::chrono::milliseconds(100)) {
      lock.unlock();
      options.progress(sh.done.load() * sh.ranks.size, sh.grid.size());
      last_draw = Clock::now();
      lock.lock();
    }
  }
  if (sh.stop) return false;
  out = std::move(sh.slots[slot]);
  sh.slot_block[slot] = -1;
  sh.taken = k + 1;
  sh.free.notify_all();
  return true;
}

// The sink's side: rank 0 (or the only rank) hands every block to the sink in point order,
// its own from the slots and the others' as they arrive; other ranks send theirs to rank 0.
void drain(Shared& sh, const SweepOptions& options, const BlockSink& sink) {
  auto last_draw = Clock::now();
  const int size = sh.ranks.size;
  if (sh.ranks.rank != 0) {
    for (int64_t k = 0; k < sh.my_blocks; ++k) {
      SweepResult block;
      if (!take(sh, k, options, last_draw, block)) return;
      send_to_root(to_bytes(block));
    }
    return;
  }
  for (int64_t b = 0; b < sh.blocks; ++b) {
    SweepResult block;
    if (b % size == 0) {
      if (!take(sh, b / size, options, last_draw, block)) return;
    } else {
      block = from_bytes(sh, receive_from(static_cast<int>(b % size)));
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
  const int threads = default_threads(options.threads);
  const int64_t block = std::max<int64_t>(1, stream.block_points);
  const int64_t window = stream.window_blocks > 0 ? stream.window_blocks : 4 * int64_t{threads};
  Shared sh(scenario, grid, evaluator, handles, block, window, stream.ranks);
  // The workers evaluate blocks; this thread hands them to the sink.
  run_threads(threads, [&](int) { worker(sh); },
              {"--jobs", [&](const std::atomic<int>&) { drain(sh, options, sink); }, [&] { sh.halt(); }});
  if (options.progress) options.progress(grid.size(), grid.size());
}

SweepResult run_sweep(scenarios::ScenarioTemplate& scenario, const Grid& grid, const Evaluator& evaluator,
                      const SweepOptions& options) {
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
