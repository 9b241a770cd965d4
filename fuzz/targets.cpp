#include "targets.h"

#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "mhcsim/calib/bench_json.h"
#include "mhcsim/calib/calibrate.h"
#include "mhcsim/calib/profile_json.h"
#include "mhcsim/cost/memory.h"
#include "mhcsim/cost/serve.h"
#include "mhcsim/cost/step.h"
#include "mhcsim/error.h"
#include "mhcsim/scenarios/catalog.h"
#include "mhcsim/scenarios/load.h"
#include "mhcsim/serving/simulate.h"
#include "mhcsim/sim/simulate.h"
#include "mhcsim/stability/mappings_file.h"
#include "mhcsim/stability/study.h"
#include "mhcsim/traces/classify.h"
#include "mhcsim/traces/compare.h"

namespace mhcsim::fuzz {

namespace {
// Small enough that a fuzzed micro-batch count is refused quickly, large enough for the
// shipped scenarios (at most 20 thousand ops).
constexpr int64_t kFuzzMaxSimOps = int64_t{1} << 16;

void price(const Scenario& s) {
  if (s.workload.mode == WorkloadMode::Serve) {
    cost::serve_estimate(s);
    return;
  }
  cost::step_estimate(s);
  cost::training_memory(s);
  const auto spec = sim::schedule_spec_from(s.parallel);
  sim::check_op_budget(spec, kFuzzMaxSimOps);
  sim::simulate(s);
}

// The request, profile, mappings and hardware readers take a path and open only regular files:
// the input goes into an in-memory file (memfd), rewritten for each input, named by its
// /proc/self/fd path. Each input gets a write time of its own (a counter), because hardware
// files are kept until their size or write time changes and the clock's tick is coarser than
// an input.
std::string memory_file(const uint8_t* data, size_t size) {
  static const int fd = memfd_create("mhcsim-fuzz", MFD_CLOEXEC);
  static int64_t inputs = 0;
  if (fd < 0 || ftruncate(fd, 0) != 0) std::abort();
  for (size_t done = 0; done < size;) {
    const ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  ++inputs;
  const timespec written[2] = {{0, UTIME_OMIT}, {static_cast<time_t>(inputs / 1000000000), inputs % 1000000000}};
  if (futimens(fd, written) != 0) std::abort();
  return "/proc/self/fd/" + std::to_string(fd);
}

constexpr int64_t kFuzzRequests = 256;
constexpr int64_t kFuzzOutputTokens = 4096;

// The first kFuzzRequests requests of a file with at most kFuzzOutputTokens output tokens.
class FuzzRequests final : public serving::RequestSource {
 public:
  explicit FuzzRequests(serving::RequestSource& file) : file_(file) {}
  std::optional<serving::Request> next() override {
    if (issued_ == kFuzzRequests) return std::nullopt;
    auto r = file_.next();
    while (r && r->output_tokens > kFuzzOutputTokens) r = file_.next();
    if (r) ++issued_;
    return r;
  }
  std::string describe() const override { return file_.describe(); }
  std::string file_path() const override { return file_.file_path(); }

 private:
  serving::RequestSource& file_;
  int64_t issued_ = 0;
};

// A small dense model on one GPU: short iterations, and a KV cache of ~2.4M tokens, which the
// fuzzed prompts can exceed.
constexpr const char* kServeScenario = R"(name = "fuzz-serve"
[model]
name = "dense-1b"
layers = 16
hidden = 2048
vocab = 32000
attention = "gqa"
heads = 16
kv_heads = 4
head_dim = 128
ffn_hidden = 8192
[hardware]
gpu = "A100"
gpus = 1
[precision]
gemm = "bf16"
[workload]
mode = "serve"
phase = "decode"
context_len = 1024
batch_seqs = 32
)";

// The same model in training, PP 2 with 1F1B, over two servers of most catalog GPUs (TP and DP
// within the NVLink domain, DP sync across nodes where the file's servers are smaller).
const std::vector<scenarios::Override> kAsTraining = {
    {"workload.mode", "train"},   {"hardware.gpus", "16"},           {"parallel.tp", "2"},
    {"parallel.pp", "2"},         {"parallel.schedule", "1f1b"},     {"parallel.micro_batches", "8"},
    {"workload.seq_len", "2048"}, {"workload.micro_batch_seqs", "1"}};

// GPU names a --set value carries as they are (others would need TOML quoting, and the file's
// values, not its names, are what the models divide by).
bool plain_name(const std::string& name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '-' || c == '.';
  });
}
}  // namespace

void scenario_input(const uint8_t* data, size_t size) {
  try {
    price(scenarios::load_scenario_from_string(std::string(reinterpret_cast<const char*>(data), size), "fuzz.toml"));
  } catch (const InputError&) {
  } catch (const InfeasibleError&) {}
}

void patterns_input(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const char* name : {"fuzz.toml", "fuzz.json"}) {
    try {
      traces::Classifier classifier(traces::parse_patterns(text, name));
      for (const char* kernel : {"flash_fwd_kernel", "ncclKernel_AllReduce_RING_LL_Sum_bf16", "dispatch_kernel<8>",
                                 "sm90_xmma_gemm_bf16bf16", ""})
        classifier.classify(kernel, "kernel");
    } catch (const InputError&) {}
  }
}

void trace_input(const uint8_t* data, size_t size) {
  try {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    // Compiling the default regexes costs more than reading a small input: do it once.
    static const traces::Classifier classifier(traces::default_patterns());
    traces::KernelTimelineBuilder builder(classifier);
    // 2 MiB of JSON after decompression: a 128 KiB input can inflate to GiBs, and nlohmann's
    // lexer, instrumented, takes ~0.5 us a byte, so a 16 MiB string (the token limit) would take
    // the 10 s fuzz timeout; past 2 MiB the same code paths only repeat.
    traces::TraceLimits limits;
    limits.max_bytes = uint64_t{2} << 20;
    traces::read_chrome_trace(
        in, "fuzz.json", [&](const traces::TraceEvent& e) { builder.add(e); }, limits);
    const auto timeline = std::move(builder).finish();
    const auto m = traces::measure(timeline, 0, timeline.ranks);
    traces::compare(m, m);
  } catch (const InputError&) {}
}

void requests_input(const uint8_t* data, size_t size) {
  static const serving::Deployment deployment(scenarios::load_scenario_from_string(kServeScenario, "fuzz-serve.toml"));
  const std::string path = memory_file(data, size);
  for (const int64_t prefill_replicas : {0, 1}) {
    try {
      serving::RequestFile file(path);
      FuzzRequests requests(file);
      serving::ServingConfig config;
      config.replicas = 2;
      config.prefill_replicas = prefill_replicas;
      config.prefix_hit_ratio = 0.5;
      serving::simulate(deployment, config, requests);
    } catch (const InputError&) {}
  }
}

void calibration_input(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const auto fitted = calib::calibrate({calib::parse_benchmark_json(text, "fuzz.json")});
    calib::profile_from_json(calib::profile_to_json(fitted.profile), "round-trip.json");
  } catch (const InputError&) {}
  try {
    calib::read_profile(memory_file(data, size));
  } catch (const InputError&) {}
}

void mappings_input(const uint8_t* data, size_t size) {
  try {
    stability::stack_study(stability::read_mappings_file(memory_file(data, size)),
                           stability::standard_variants({1, 20}));
  } catch (const InputError&) {}
}

void hardware_input(const uint8_t* data, size_t size) {
  const std::string path = memory_file(data, size);
  try {
    const auto entries = scenarios::hardware_file(path);
    int gpus = 0;
    for (const auto& e : *entries) {
      if (!plain_name(e.key)) continue;
      if (++gpus > 3) break;
      for (const bool training : {true, false}) {
        std::vector<scenarios::Override> overrides = {{"hardware.catalog", path}, {"hardware.gpu", e.key}};
        if (training) overrides.insert(overrides.end(), kAsTraining.begin(), kAsTraining.end());
        try {
          price(scenarios::load_scenario_from_string(kServeScenario, "fuzz.toml", overrides));
        } catch (const InputError&) {
        } catch (const InfeasibleError&) {}
      }
    }
  } catch (const InputError&) {}
}

}  // namespace mhcsim::fuzz
