// Dense GEMMs through cuBLASLt, the measurement behind the cost model's GEMM efficiency
// (calib's gemm_bf16 / gemm_fp8 classes read M, N, K from the benchmark name). Shapes are
// DeepSeek-V3's: a micro-batch of 4096 tokens through the expert (7168 -> 2 x 2048 -> 7168),
// MLA and dense FFN projections. FP8 uses per-tensor scales of 1 (DeepGEMM's fine-grained
// scaling costs more; this is the tensor-core ceiling). Inputs are a constant bit pattern.
#include <benchmark/benchmark.h>
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <stdexcept>
#include <string>

#include "bench_util.h"
#include "mhcsim/kernels/device_buffer.h"

namespace mhcsim::kernels::bench {
namespace {

void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string(what) + ": cuBLASLt status " + std::to_string(int(status)));
}

// D (M x N, bf16) = A (M x K) B (K x N), in cuBLAS's column-major "TN" layout that FP8 requires:
// A stored K x M and transposed, B stored K x N.
void BM_gemm(benchmark::State& state, cudaDataType_t input, size_t input_bytes) {
  if (!add_gpu_context()) return state.SkipWithError("no CUDA device");
  const int64_t m = state.range(0), n = state.range(1), k = state.range(2);
  DeviceBuffer<char> a(size_t(m * k) * input_bytes), b(size_t(k * n) * input_bytes);
  DeviceBuffer<__nv_bfloat16> d(size_t(m * n));
  DeviceBuffer<char> workspace(32u << 20);
  a.fill_bytes(0x38);
  b.fill_bytes(0x38);
  cublasLtHandle_t handle;
  check(cublasLtCreate(&handle), "cublasLtCreate");
  cublasLtMatmulDesc_t op;
  check(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), "matmul desc");
  const cublasOperation_t t = CUBLAS_OP_T, nt = CUBLAS_OP_N;
  check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t), "transa");
  check(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &nt, sizeof nt), "transb");
  cublasLtMatrixLayout_t la, lb, ld;
  check(cublasLtMatrixLayoutCreate(&la, input, uint64_t(k), uint64_t(m), k), "layout A");
  check(cublasLtMatrixLayoutCreate(&lb, input, uint64_t(k), uint64_t(n), k), "layout B");
  check(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, uint64_t(m), uint64_t(n), m), "layout D");
  cublasLtMatmulPreference_t pref;
  check(cublasLtMatmulPreferenceCreate(&pref), "preference");
  const size_t ws = workspace.size();
  check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
        "workspace");
  cublasLtMatmulHeuristicResult_t algo{};
  int found = 0;
  check(cublasLtMatmulAlgoGetHeuristic(handle, op, la, lb, ld, ld, pref, 1, &algo, &found), "heuristic");
  if (found == 0) {
    state.SkipWithError("cuBLASLt has no algorithm for this shape and dtype");
  } else {
    const float alpha = 1.0f, beta = 0.0f;
    const double flops = 2.0 * double(m) * double(n) * double(k);
    const double bytes = double(m * k + k * n) * double(input_bytes) + double(m * n) * 2.0;
    run_timed(
        state,
        [&] {
          check(cublasLtMatmul(handle, op, &alpha, a.data(), la, b.data(), lb, &beta, d.data(), ld, d.data(), ld,
                               &algo.algo, workspace.data(), ws, nullptr),
                "matmul");
        },
        bytes, flops);
  }
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(ld);
  cublasLtMatmulDescDestroy(op);
  cublasLtDestroy(handle);
}

void BM_gemm_bf16(benchmark::State& state) { BM_gemm(state, CUDA_R_16BF, 2); }
void BM_gemm_fp8(benchmark::State& state) { BM_gemm(state, CUDA_R_8F_E4M3, 1); }

void shapes(benchmark::internal::Benchmark* b) {
  b->ArgNames({"M", "N", "K"});
  b->Args({4096, 4096, 7168});   // expert gate + up (2 x 2048) for 4096 tokens
  b->Args({4096, 7168, 2048});   // expert down
  b->Args({4096, 1536, 7168});   // MLA W_DQ
  b->Args({4096, 24576, 1536});  // MLA W_UQ (128 heads x 192)
  b->Args({4096, 7168, 16384});  // MLA W_O (128 heads x 128)
  b->Args({8192, 8192, 8192});   // square reference
  b->UseManualTime()->Unit(benchmark::kMicrosecond);
}
BENCHMARK(BM_gemm_bf16)->Apply(shapes);
BENCHMARK(BM_gemm_fp8)->Apply(shapes);

}  // namespace
}  // namespace mhcsim::kernels::bench
