// Prints the training step time of a scenario, in seconds, with every digit: the install test
// compares it with the installed CLI's `step --json`.
#include <cstdio>
#include <exception>

#include "mhcsim/cost/step.h"
#include "mhcsim/scenarios/load.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer scenario.toml\n");
    return 2;
  }
  try {
    const auto s = mhcsim::scenarios::load_scenario(argv[1]);
    std::printf("%.17g\n", mhcsim::cost::step_estimate(s).step_seconds);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
