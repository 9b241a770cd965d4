#pragma once
// Published model configurations built in C++ from DESIGN.md (and the configs it cites), so the
// golden tests do not depend on the scenario files.
#include "mhcsim/specs.h"

namespace mhcsim::test {

// DeepSeek-V3 config.json / technical report sec. 2.
inline ModelSpec deepseek_v3() {
  ModelSpec m;
  m.name = "DeepSeek-V3";
  m.layers = 61;
  m.hidden = 7168;
  m.vocab = 129280;
  m.attention = AttentionKind::MLA;
  m.heads = 128;
  m.q_lora_rank = 1536;
  m.kv_lora_rank = 512;
  m.qk_nope_head_dim = 128;
  m.qk_rope_head_dim = 64;
  m.v_head_dim = 128;
  m.dense_layers = 3;
  m.ffn_hidden = 18432;
  m.routed_experts = 256;
  m.shared_experts = 1;
  m.top_k = 8;
  m.expert_ffn_hidden = 2048;
  m.expert_groups = 8;
  m.max_groups_per_token = 4;
  return m;
}

// Dense GQA/MHA model of `layers` x `hidden` with head_dim 128.
inline ModelSpec dense(int64_t layers, int64_t hidden, int64_t heads, int64_t kv_heads, AttentionKind kind) {
  ModelSpec m;
  m.layers = layers;
  m.hidden = hidden;
  m.vocab = 32000;
  m.attention = kind;
  m.heads = heads;
  m.kv_heads = kv_heads;
  m.head_dim = 128;
  m.ffn_hidden = 4 * hidden;
  return m;
}

}  // namespace mhcsim::test
