// MLA decode (s_q = 1) over a paged bf16 latent cache, DeepSeek-V3 shapes; bytes and FLOPs in
// FlashMLA's accounting (cost::mla_decode_bytes / mla_decode_flops).
#include <benchmark/benchmark.h>

#include <vector>

#include "bench_util.h"
#include "mhcsim/cost/kernel_bytes.h"
#include "mhcsim/kernels/device_buffer.h"
#include "mhcsim/kernels/mla_decode.h"

namespace mhcsim::kernels::bench {
namespace {

void BM_mla_decode(benchmark::State& state) {
  const int64_t batch = state.range(0), heads = state.range(1), len = state.range(2);
  const int64_t blocks_per_seq = (len + kMlaBlockTokens - 1) / kMlaBlockTokens;
  std::vector<int32_t> table(size_t(batch * blocks_per_seq));
  const std::vector<int32_t> lens(static_cast<size_t>(batch), int32_t(len));
  for (size_t i = 0; i < table.size(); ++i) table[i] = int32_t(i);  // pages in order
  DeviceBuffer<bf16_bits> q(size_t(batch * heads * kMlaHeadDim)), cache(table.size() * size_t(kMlaBlockTokens * kMlaHeadDim)),
      out(size_t(batch * heads * kMlaLatentDim));
  q.fill_bytes(0x3c);
  cache.fill_bytes(0x3c);
  DeviceBuffer<int32_t> d_table(table), d_lens(lens);
  DeviceBuffer<float> lse(size_t(batch * heads));
  MlaDecodeParams p;
  p.q = q.get();
  p.kv_cache = cache.get();
  p.block_table = d_table.get();
  p.seq_lens = d_lens.get();
  p.out = out.get();
  p.lse = lse.get();
  p.batch = batch;
  p.heads = heads;
  p.num_blocks = int64_t(table.size());
  p.max_blocks_per_seq = blocks_per_seq;
  p.max_seq_len = len;
  p.softmax_scale = 0.0721688f;  // 1/sqrt(192)
  p.tokens_per_split = 1024;
  DeviceBuffer<float> work(size_t(mla_workspace_floats(p)));
  p.workspace = work.get();
  cost::MlaDecodeShape shape;
  shape.batch = batch;
  shape.total_kv_tokens = batch * len;
  shape.q_heads = heads;
  run_timed(state, [&] { mla_decode(p); }, cost::mla_decode_bytes(shape, DType::BF16, DType::BF16),
            cost::mla_decode_flops(shape));
}

BENCHMARK(BM_mla_decode)
    ->ArgNames({"batch", "heads", "seqlen"})
    ->Args({128, 128, 4096})   // FlashMLA's headline shape: h_q 128, s_q 1
    ->Args({64, 16, 8192})     // TP-split heads: memory-bound (h_q s_q < 128)
    ->Args({32, 16, 32768})    // long context
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace mhcsim::kernels::bench
