#include "mhcsim/kernels/ref/sinkhorn_ref.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "mhcsim/kernels/bf16.h"

namespace mhcsim::kernels::ref {
namespace {

// Step k of the unrolled iteration: odd steps normalise columns, even steps rows.
bool step_is_column(int step) { return step % 2 == 1; }

// Sum of row/column `index` of the n x n row-major matrix m.
template <class T>
T line_sum(const T* m, int64_t n, int64_t index, bool column) {
  T s = 0;
  for (int64_t k = 0; k < n; ++k) s += column ? m[k * n + index] : m[index * n + k];
  return s;
}

// Every line's sum first (each in the order k = 0..n-1 of line_sum, so the result is the same
// bit for bit), then the divisions in row-major order. Safe in place (in == out). N > 0 is n
// known at compile time: the loops unroll and the divisions vectorise (the stability study runs
// millions of these, issue 19); N = 0 takes n at run time.
template <class T, int64_t N>
void normalise_lines(const T* in_, T* out, int64_t runtime_n, bool column) {
  const int64_t n = N > 0 ? N : runtime_n;
  // A local copy for a compile-time n: out may alias in, which keeps the loops scalar.
  T local[N > 0 ? N * N : 1];
  if constexpr (N > 0) std::copy(in_, in_ + N * N, local);
  const T* in = N > 0 ? local : in_;
  constexpr int64_t kStackLines = N > 0 ? N : 64;
  T stack[kStackLines];
  std::vector<T> heap;
  T* sums = stack;
  if (N == 0 && n > kStackLines) {
    heap.resize(static_cast<size_t>(n));
    sums = heap.data();
  }
  for (int64_t line = 0; line < n; ++line) sums[line] = 0;
  if (column) {
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) sums[j] += in[i * n + j];
    }
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) out[i * n + j] = in[i * n + j] / sums[j];
    }
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) sums[i] += in[i * n + j];
  }
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) out[i * n + j] = in[i * n + j] / sums[i];
  }
}

template <class T>
void normalise(const T* in, T* out, int64_t n, bool column) {
  switch (n) {
    case 2:
      return normalise_lines<T, 2>(in, out, n, column);
    case 4:
      return normalise_lines<T, 4>(in, out, n, column);
    case 8:
      return normalise_lines<T, 8>(in, out, n, column);
    default:
      return normalise_lines<T, 0>(in, out, n, column);
  }
}

// states[0] = exp(logits - max); states[k] = step k applied to states[k-1], k = 1..2t.
template <class T>
std::vector<T> unrolled_states(const T* logits, int64_t n, int iterations) {
  const int64_t nn = n * n;
  std::vector<T> states(static_cast<size_t>((2 * iterations + 1) * nn));
  const T max_logit = *std::max_element(logits, logits + nn);
  for (int64_t i = 0; i < nn; ++i) states[static_cast<size_t>(i)] = std::exp(logits[i] - max_logit);
  for (int step = 1; step <= 2 * iterations; ++step) {
    normalise(&states[static_cast<size_t>((step - 1) * nn)], &states[static_cast<size_t>(step * nn)], n,
              step_is_column(step));
  }
  return states;
}

}  // namespace

template <class T>
void sinkhorn_forward(const T* logits, T* h, int64_t n, int iterations) {
  const std::vector<T> states = unrolled_states(logits, n, iterations);
  std::copy(states.end() - n * n, states.end(), h);
}

template <class T>
void sinkhorn_forward(const T* logits, T* h, int64_t n, int iterations, SinkhornStorage storage) {
  const int64_t nn = n * n;
  const auto store = [&] {
    if (storage != SinkhornStorage::Bf16) return;
    for (int64_t i = 0; i < nn; ++i) h[i] = static_cast<T>(round_to_bf16(static_cast<float>(h[i])));
  };
  // The same operations as unrolled_states, one state kept: exp(logits - max), then the steps.
  const T max_logit = *std::max_element(logits, logits + nn);
  for (int64_t i = 0; i < nn; ++i) h[i] = std::exp(logits[i] - max_logit);
  store();
  for (int step = 1; step <= 2 * iterations; ++step) {
    normalise(h, h, n, step_is_column(step));
    store();
  }
}

template <class T>
void sinkhorn_backward(const T* logits, const T* grad_h, T* grad_logits, int64_t n, int iterations) {
  const int64_t nn = n * n;
  const std::vector<T> states = unrolled_states(logits, n, iterations);
  std::vector<T> grad(grad_h, grad_h + nn), grad_in(static_cast<size_t>(nn));
  // y = x / s(line), s = sum of x over the line: dx = (dy - sum_line(dy * y)) / s.
  for (int step = 2 * iterations; step >= 1; --step) {
    const T* x = &states[static_cast<size_t>((step - 1) * nn)];
    const T* y = &states[static_cast<size_t>(step * nn)];
    const bool column = step_is_column(step);
    for (int64_t line = 0; line < n; ++line) {
      const T s = line_sum(x, n, line, column);
      T dot = 0;
      for (int64_t k = 0; k < n; ++k) {
        const int64_t at = column ? k * n + line : line * n + k;
        dot += grad[static_cast<size_t>(at)] * y[at];
      }
      for (int64_t k = 0; k < n; ++k) {
        const int64_t at = column ? k * n + line : line * n + k;
        grad_in[static_cast<size_t>(at)] = (grad[static_cast<size_t>(at)] - dot) / s;
      }
    }
    grad.swap(grad_in);
  }
  // states[0] = exp(l - max): d/dl = grad * states[0]; the max shift's path sums to zero
  // because SK is invariant to a constant factor.
  for (int64_t i = 0; i < nn; ++i) grad_logits[i] = grad[static_cast<size_t>(i)] * states[static_cast<size_t>(i)];
}

template void sinkhorn_forward<float>(const float*, float*, int64_t, int);
template void sinkhorn_forward<double>(const double*, double*, int64_t, int);
template void sinkhorn_forward<float>(const float*, float*, int64_t, int, SinkhornStorage);
template void sinkhorn_forward<double>(const double*, double*, int64_t, int, SinkhornStorage);
template void sinkhorn_backward<float>(const float*, const float*, float*, int64_t, int);
template void sinkhorn_backward<double>(const double*, const double*, double*, int64_t, int);

void sinkhorn_forward(const SinkhornParams& p) {
  validate(p);
  const int64_t nn = p.n * p.n;
  for (int64_t t = 0; t < p.tokens; ++t) {
    sinkhorn_forward(p.logits + t * nn, p.h_res + t * nn, p.n, p.iterations);
  }
}

void sinkhorn_backward(const SinkhornParams& p) {
  validate(p);
  const int64_t nn = p.n * p.n;
  for (int64_t t = 0; t < p.tokens; ++t) {
    sinkhorn_backward(p.logits + t * nn, p.grad_h_res + t * nn, p.grad_logits + t * nn, p.n, p.iterations);
  }
}

}  // namespace mhcsim::kernels::ref
