// `import mhcsim`: scenarios, the cost model's estimates and the simulators from Python.
#include "bindings.h"
#include "mhcsim/version.h"

PYBIND11_MODULE(mhcsim, m) {
  using namespace mhcsim::python;
  m.doc() =
      "mhcsim: performance model and simulator for DeepSeek-style LLM training and serving. "
      "Results are plain dicts and lists (pandas.DataFrame takes the lists of rows as they are).";
  m.attr("__version__") = std::string(mhcsim::kVersion);
  register_errors(m);
  register_scenario(m);
  register_estimates(m);
  register_runs(m);
  register_measurements(m);
}
