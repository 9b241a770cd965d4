#pragma once
// A request while the simulator holds it: compact, copied between queues.
#include <cstdint>

namespace mhcsim::serving::detail {

struct Live {
  int64_t id = 0;
  double arrival_s = 0;
  double first_token_s = -1;  // < 0 until the first token
  int32_t input = 0;          // prompt tokens
  int32_t output = 0;         // tokens to generate
  int32_t hit = 0;            // prompt tokens served from the prefix cache
  int32_t prompt = 0;         // tokens to have cached before decoding: the input, or after a
                              // preemption input + generated (vLLM's recompute)
  int32_t cached = 0;         // tokens with KV in this replica's cache
  int32_t generated = 0;
  int32_t blocks = 0;     // KV blocks held
  int32_t scheduled = 0;  // tokens in the current iteration (a chunk, or 1 decode token)
  int32_t line = 0;       // request file line, for errors
  bool prefill_done() const { return cached >= prompt; }
};

}  // namespace mhcsim::serving::detail
