// MoE routing on the GPU: gate (one warp per token; lane l holds experts l, l+32, ...),
// permute (count, scan, stable per-expert ranking, row copy) and weighted combine.
#include "device_utils.cuh"
#include "mhcsim/kernels/moe.h"

namespace mhcsim::kernels {
namespace {

constexpr int kGateWarps = 4;
constexpr int kPerLane = int(kMoeMaxExperts) / 32;

struct Pick {
  float value;
  int index;    // -1: none
  float extra;  // carried along (the unbiased affinity)
};

// Larger value wins; equal values go to the lower index, as the CPU reference's stable sort.
__device__ __forceinline__ Pick better(Pick a, Pick b) {
  if (b.index < 0) return a;
  if (a.index < 0) return b;
  if (b.value > a.value || (b.value == a.value && b.index < a.index)) return b;
  return a;
}

__device__ __forceinline__ Pick warp_best(Pick p) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) {
    Pick o{__shfl_xor_sync(cuda::kFullMask, p.value, offset), __shfl_xor_sync(cuda::kFullMask, p.index, offset),
           __shfl_xor_sync(cuda::kFullMask, p.extra, offset)};
    p = better(p, o);
  }
  return p;
}

__global__ void __launch_bounds__(kGateWarps * 32) gate_kernel(MoeGateParams p) {
  __shared__ float group_score[kGateWarps][kMoeMaxExperts / 2];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t t = int64_t(blockIdx.x) * kGateWarps + warp;
  if (t >= p.tokens) return;  // whole warps leave together
  const int experts = int(p.experts), group_size = int(p.experts / p.groups);
  float affinity[kPerLane], choice[kPerLane];
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    const int e = i * 32 + lane;
    affinity[i] = e < experts ? 1.0f / (1.0f + expf(-p.logits[t * experts + e])) : 0.0f;
    choice[i] = e < experts ? affinity[i] + p.bias[e] : -INFINITY;
  }
  // Best pick among this lane's experts that satisfy keep(e, i).
  auto lane_best = [&](auto keep) {
    Pick best{-INFINITY, -1, 0.0f};
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
      const int e = i * 32 + lane;
      if (e < experts && keep(e, i)) best = better(best, Pick{choice[i], e, affinity[i]});
    }
    return best;
  };
  for (int g = 0; g < int(p.groups); ++g) {  // group score: sum of its top-2 choices
    const auto in_group = [&](int e, int) { return e / group_size == g; };
    const Pick first = warp_best(lane_best(in_group));
    const Pick second = warp_best(lane_best([&](int e, int i) { return in_group(e, i) && e != first.index; }));
    if (lane == 0) group_score[warp][g] = first.value + second.value;
  }
  __syncwarp();
  unsigned long long kept_lo = 0, kept_hi = 0;  // bit g of the groups kept (groups <= 128 here)
  for (int r = 0; r < int(p.topk_group); ++r) {
    Pick best{-INFINITY, -1, 0.0f};
    for (int g = lane; g < int(p.groups); g += 32) {
      const bool taken = g < 64 ? (kept_lo >> g) & 1ull : (kept_hi >> (g - 64)) & 1ull;
      if (!taken) best = better(best, Pick{group_score[warp][g], g, 0.0f});
    }
    const int g = warp_best(best).index;
    if (g < 64)
      kept_lo |= 1ull << g;
    else
      kept_hi |= 1ull << (g - 64);
  }
  const auto group_kept = [&](int e) {
    const int g = e / group_size;
    return g < 64 ? ((kept_lo >> g) & 1ull) != 0 : ((kept_hi >> (g - 64)) & 1ull) != 0;
  };
  float weight_sum = 0, my_weight = 0;
  int my_index = -1;
  for (int s = 0; s < int(p.top_k); ++s) {
    const Pick pick = warp_best(lane_best([&](int e, int i) { return group_kept(e) && choice[i] > -INFINITY; }));
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
      if (i * 32 + lane == pick.index) choice[i] = -INFINITY;  // taken
    }
    weight_sum += pick.extra;
    if (lane == s) {
      my_index = pick.index;
      my_weight = pick.extra;
    }
  }
  if (lane < p.top_k) {
    p.topk_idx[t * p.top_k + lane] = my_index;
    p.topk_weight[t * p.top_k + lane] = my_weight / weight_sum * p.route_scale;
  }
}

__global__ void count_kernel(const int32_t* __restrict__ idx, int64_t slots, int32_t* __restrict__ counts) {
  for (int64_t s = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; s < slots; s += int64_t(gridDim.x) * blockDim.x) {
    atomicAdd(&counts[idx[s] + 1], 1);  // counts into offsets[e+1]; the order does not matter
  }
}

__global__ void scan_kernel(int32_t* offsets, int64_t experts) {
  for (int64_t e = 1; e <= experts; ++e) offsets[e] += offsets[e - 1];  // experts <= a few hundred
}

// Block e ranks expert e's slots in (token, slot) order: a block-wide prefix of match flags.
__global__ void __launch_bounds__(256) rank_kernel(MoePermuteParams p) {
  __shared__ int warp_counts[8];
  const int e = blockIdx.x, warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t slots = p.tokens * p.top_k;
  int base = p.expert_offsets[e];
  for (int64_t chunk = 0; chunk < slots; chunk += 256) {
    const int64_t s = chunk + threadIdx.x;
    const bool match = s < slots && p.topk_idx[s] == e;
    const unsigned ballot = __ballot_sync(cuda::kFullMask, match);
    if (lane == 0) warp_counts[warp] = __popc(ballot);
    __syncthreads();
    int before = 0, total = 0;
    for (int w = 0; w < 8; ++w) {
      before += w < warp ? warp_counts[w] : 0;
      total += warp_counts[w];
    }
    if (match) {
      const int row = base + before + __popc(ballot & ((1u << lane) - 1u));
      p.row_of_slot[s] = row;
      p.slot_of_row[row] = int32_t(s);
    }
    base += total;
    __syncthreads();
  }
}

__global__ void __launch_bounds__(128) copy_rows_kernel(MoePermuteParams p) {
  const int64_t row = blockIdx.x, token = p.slot_of_row[row] / p.top_k;
  for (int64_t c = int64_t(threadIdx.x) * 8; c < p.hidden; c += 128 * 8) {
    *reinterpret_cast<uint4*>(p.x_perm + row * p.hidden + c) =
        *reinterpret_cast<const uint4*>(p.x + token * p.hidden + c);
  }
}

__global__ void __launch_bounds__(128) combine_kernel(MoeCombineParams p) {
  const int64_t t = blockIdx.x;
  for (int64_t c = int64_t(threadIdx.x) * 8; c < p.hidden; c += 128 * 8) {
    float out[8] = {};
    for (int64_t s = 0; s < p.top_k; ++s) {
      const float w = p.topk_weight[t * p.top_k + s];
      float y[8];
      cuda::load8(p.y_perm + int64_t(p.row_of_slot[t * p.top_k + s]) * p.hidden + c, y);
#pragma unroll
      for (int e = 0; e < 8; ++e) out[e] = fmaf(w, y[e], out[e]);
    }
    cuda::store8(p.out + t * p.hidden + c, out);
  }
}

}  // namespace

void moe_gate(const MoeGateParams& p) {
  validate(p);
  require(p.groups <= 128 && p.top_k <= 32, "moe_gate", "the CUDA gate supports groups <= 128, top_k <= 32");
  if (p.tokens == 0) return;
  gate_kernel<<<cuda::grid_1d(p.tokens, kGateWarps), kGateWarps * 32, 0, p.stream>>>(p);
  MHCSIM_CUDA_CHECK_LAUNCH();
}

void moe_permute(const MoePermuteParams& p) {
  validate(p);
  const int64_t slots = p.tokens * p.top_k;
  MHCSIM_CUDA_CHECK(cudaMemsetAsync(p.expert_offsets, 0, sizeof(int32_t) * size_t(p.experts + 1), p.stream));
  if (slots == 0) return;
  count_kernel<<<std::min<unsigned>(cuda::grid_1d(slots, 256), 1024), 256, 0, p.stream>>>(p.topk_idx, slots,
                                                                                          p.expert_offsets);
  scan_kernel<<<1, 1, 0, p.stream>>>(p.expert_offsets, p.experts);
  rank_kernel<<<static_cast<unsigned>(p.experts), 256, 0, p.stream>>>(p);
  copy_rows_kernel<<<static_cast<unsigned>(slots), 128, 0, p.stream>>>(p);
  MHCSIM_CUDA_CHECK_LAUNCH();
}

void moe_combine(const MoeCombineParams& p) {
  validate(p);
  if (p.tokens == 0) return;
  combine_kernel<<<static_cast<unsigned>(p.tokens), 128, 0, p.stream>>>(p);
  MHCSIM_CUDA_CHECK_LAUNCH();
}

}  // namespace mhcsim::kernels
