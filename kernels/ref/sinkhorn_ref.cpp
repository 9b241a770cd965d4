#include "mhcsim/kernels/ref/sinkhorn_ref.h"

#include <algorithm>
#include <cmath>
#include <vector>

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

template <class T>
void normalise(const T* in, T* out, int64_t n, bool column) {
  for (int64_t line = 0; line < n; ++line) {
    const T s = line_sum(in, n, line, column);
    for (int64_t k = 0; k < n; ++k) {
      const int64_t at = column ? k * n + line : line * n + k;
      out[at] = in[at] / s;
    }
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
    normalise(&states[static_cast<size_t>((step - 1) * nn)], &states[static_cast<size_t>(step * nn)],
              n, step_is_column(step));
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
void sinkhorn_backward(const T* logits, const T* grad_h, T* grad_logits, int64_t n,
                       int iterations) {
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
    sinkhorn_backward(p.logits + t * nn, p.grad_h_res + t * nn, p.grad_logits + t * nn, p.n,
                      p.iterations);
  }
}

}  // namespace mhcsim::kernels::ref
