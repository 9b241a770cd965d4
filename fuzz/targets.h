#pragma once
// What one fuzz input exercises, shared by the libFuzzer targets and the regression test that
// replays tests/robustness/corpus/: bad input may only ever raise mhcsim::InputError (which the
// CLI prints as one line, exit code 2); any other exception, crash or sanitizer report is a bug.
#include <cstddef>
#include <cstdint>

namespace mhcsim::fuzz {

// The bytes as a scenario TOML file (parse, validate, complete), then every model that prices
// it: the step or serving estimate, the memory estimate, and the simulator under a small op
// budget (a refusal is an InputError like any other; "does not fit" is a verdict, not a bug).
void scenario_input(const uint8_t* data, size_t size);
// The bytes as a kernel-patterns file, TOML and JSON (load_patterns), then the classifier
// built from it on a few kernel names.
void patterns_input(const uint8_t* data, size_t size);
// The bytes as a Chrome trace (plain or gzip): read, classify, measure, compare with itself.
void trace_input(const uint8_t* data, size_t size);

}  // namespace mhcsim::fuzz
