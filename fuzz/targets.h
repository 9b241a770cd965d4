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
// The bytes as a request file (CSV or JSONL, told by the first character) streamed into the
// serving simulator, colocated and disaggregated. The simulator sees at most kFuzzRequests
// requests and none past kFuzzOutputTokens output tokens (each output token is an iteration);
// every line up to the last request it sees is parsed and checked.
void requests_input(const uint8_t* data, size_t size);
// The bytes as benchmark JSON (Google Benchmark or the NCCL probe), fitted into a calibration
// profile that goes through its JSON and back; then the bytes as a calibration profile.
void calibration_input(const uint8_t* data, size_t size);
// The bytes as an mHC mappings file (read_mappings_file: .npy when they start with its magic,
// else JSON), then the stability study of the stack.
void mappings_input(const uint8_t* data, size_t size);
// The bytes as a hardware file (--hardware, [hardware] catalog), then its first three GPUs
// (plainly named) under a small model in training and in serving, priced as
// scenario_input prices them.
void hardware_input(const uint8_t* data, size_t size);

}  // namespace mhcsim::fuzz
