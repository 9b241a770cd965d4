// The cost model's answers, one function per CLI verb, each the dict or list of rows that the
// verb's --json prints (api/ builds both).
#include <pybind11/stl.h>

#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "mhcsim/api/a2a.h"
#include "mhcsim/api/bubble.h"
#include "mhcsim/api/diff.h"
#include "mhcsim/api/kv.h"
#include "mhcsim/api/memory.h"
#include "mhcsim/api/stability.h"
#include "mhcsim/api/step.h"
#include "mhcsim/api/traffic.h"
#include "mhcsim/error.h"

namespace mhcsim::python {

namespace {
// An argument standing for a scenario key (kv's context is workload.context_len): None keeps the
// scenario's value (0 to the API); any other is held to the key's type and range, as the CLI's
// flags are (so 0 is refused, as --context 0 is).
int64_t key_argument(const std::optional<int64_t>& value, const char* argument, const char* key) {
  if (!value) return 0;
  if (auto problem = scenarios::key_value_problem(key, std::to_string(*value)); !problem.empty())
    throw InputError(argument, problem);
  return *value;
}
}  // namespace

void register_estimates(py::module_& m) {
  using L = const LoadedScenario&;
  m.def(
      "step",
      [](L l, bool ops) {
        auto result = to_python(ops ? api::step_ops_table(l.scenario).to_json()
                                    : reports::quantities_to_json(api::step_quantities(l.scenario)));
        warn_if_it_does_not_fit(l.scenario);
        return result;
      },
      py::arg("scenario"), py::arg("ops") = false,
      "One step (`mhcsim step`): training (compute, communication, bubble, MFU) or serving (decode/prefill), "
      "as a dict; ops=True: one layer's operations as a list of rows.");
  m.def(
      "memory",
      [](L l) {
        auto result = to_python(reports::quantities_to_json(api::memory_quantities(l.scenario)));
        warn_if_it_does_not_fit(l.scenario);
        return result;
      },
      py::arg("scenario"), "Memory per GPU (`mhcsim memory`) as a dict.");
  m.def(
      "kv",
      [](L l, const std::optional<int64_t>& context, const std::optional<int64_t>& batch) {
        return to_python(api::kv_table(l.scenario, key_argument(context, "context", "workload.context_len"),
                                       key_argument(batch, "batch", "workload.batch_seqs"))
                             .to_json());
      },
      py::arg("scenario"), py::arg("context") = py::none(), py::arg("batch") = py::none(),
      "KV cache per attention kind (`mhcsim kv`), a list of rows; context and batch None take the scenario's.");
  m.def(
      "traffic",
      [](L l, const std::optional<int64_t>& n) {
        return to_python(api::to_json(api::traffic(l.scenario, key_argument(n, "n", "model.mhc.n"))));
      },
      py::arg("scenario"), py::arg("n") = py::none(),
      "mHC memory traffic (`mhcsim traffic`): {'rows': [...], 'summary': {...}}; n sets the expansion rate.");
  m.def(
      "bubble", [](L l) { return to_python(api::bubble_table(l.scenario).to_json()); }, py::arg("scenario"),
      "Every pipeline schedule at the scenario's PP and micro-batches (`mhcsim bubble`), a list of rows.");
  m.def(
      "a2a",
      [](L l, const std::optional<int64_t>& tokens) {
        return to_python(reports::quantities_to_json(
            api::a2a_quantities(l.scenario, key_argument(tokens, "tokens", "workload.context_len"))));
      },
      py::arg("scenario"), py::arg("tokens") = py::none(),
      "MoE all-to-all (`mhcsim a2a`) as a dict; tokens per GPU per MoE layer, None: one micro-batch or the decode "
      "batch.");
  m.def(
      "stability",
      [](L l, int64_t n, int64_t layers, const std::vector<int64_t>& sinkhorn_iters, double noise, int64_t samples,
         int64_t seed, const std::optional<std::string>& mappings) {
        api::StabilityRequest r;
        r.names = api::ArgumentNames::Keywords;
        r.n = n;
        r.layers = layers;
        r.sinkhorn_iters = sinkhorn_iters;
        r.noise = noise;
        r.samples = samples;
        r.seed = seed;
        r.mappings = path_argument(mappings, "mappings");
        nlohmann::json doc;
        {
          const LongCall call;
          doc = api::to_json(r, api::stability(l.scenario, r));
        }
        return to_python(doc);
      },
      py::arg("scenario"), py::arg("n") = 0, py::arg("layers") = 0, py::arg("sinkhorn_iters") = std::vector<int64_t>{},
      py::arg("noise") = stability::kPaperHcNoise, py::arg("samples") = 1000, py::arg("seed") = 1,
      py::arg("mappings") = py::none(),
      "What mHC buys (`mhcsim stability`): the composite residual gain of HC against mHC at each Sinkhorn t_max "
      "in fp32 and bf16 over depth, for a random model (n, layers, noise, samples, seed; 0: the scenario's) or "
      "a mappings file (L x n x n, JSON or .npy). A dict; 'variants' holds one row per variant with its 'curve' "
      "over depth.");
  m.def(
      "diff", [](L a, L b) { return to_python(api::to_json(api::diff_scenarios(a.scenario, b.scenario))); },
      py::arg("a"), py::arg("b"),
      "Two scenarios side by side (`mhcsim diff`): {'keys': the keys that differ, 'figures': every step and memory "
      "figure of a and b with b / a - 1 as 'change'}.");
}

}  // namespace mhcsim::python
