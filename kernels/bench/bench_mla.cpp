// MLA decode (s_q = 1) over a paged latent cache, bf16 or FlashMLA's FP8 rows, DeepSeek-V3
// shapes; bytes and FLOPs in FlashMLA's accounting (cost::mla_decode_bytes / mla_decode_flops).
#include <benchmark/benchmark.h>

#include <vector>

#include "bench_util.h"
#include "mhcsim/cost/kernel_bytes.h"
#include "mhcsim/kernels/device_buffer.h"
#include "mhcsim/kernels/kernel_buffers.h"
#include "mhcsim/kernels/mla_decode.h"

namespace mhcsim::kernels::bench {
namespace {

void BM_mla_decode(benchmark::State& state) {
  const int64_t batch = state.range(0), heads = state.range(1), len = state.range(2);
  const bool fp8 = state.range(3) != 0;
  MlaDecodeParams config;
  config.batch = batch;
  config.heads = heads;
  config.max_blocks_per_seq = (len + kMlaBlockTokens - 1) / kMlaBlockTokens;
  config.num_blocks = batch * config.max_blocks_per_seq;
  config.max_seq_len = len;
  config.softmax_scale = 0.0721688f;  // 1/sqrt(192)
  config.tokens_per_split = 1024;
  MlaDecode<DeviceBuffer> b(config, fp8);
  std::vector<int32_t> table(b.block_table.size());
  for (size_t i = 0; i < table.size(); ++i) table[i] = int32_t(i);  // pages in order
  b.block_table.upload(table);
  b.seq_lens.upload(std::vector<int32_t>(b.seq_lens.size(), int32_t(len)));
  b.q.fill_bytes(0x3c);
  // 0x3c bytes are finite everywhere: bf16 and fp32 0.0115, e4m3 1.5.
  if (fp8) {
    b.kv_cache_fp8.fill_bytes(0x3c);
  } else {
    b.kv_cache.fill_bytes(0x3c);
  }
  const auto p = b.params();
  cost::MlaDecodeShape shape;
  shape.batch = batch;
  shape.total_kv_tokens = batch * len;
  shape.q_heads = heads;
  run_timed(
      state, [&] { mla_decode(p); }, cost::mla_decode_bytes(shape, fp8 ? DType::FP8 : DType::BF16, DType::BF16),
      cost::mla_decode_flops(shape));
}

BENCHMARK(BM_mla_decode)
    ->ArgNames({"batch", "heads", "seqlen", "fp8"})
    ->Args({128, 128, 4096, 0})  // FlashMLA's headline shape: h_q 128, s_q 1
    ->Args({64, 16, 8192, 0})    // TP-split heads: memory-bound (h_q s_q < 128)
    ->Args({32, 16, 32768, 0})   // long context
    ->Args({32, 16, 32768, 1})   // the same over the FP8 cache: 656 instead of 1152 B a token
    ->UseManualTime()
    ->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace mhcsim::kernels::bench
