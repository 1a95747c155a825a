// The body of the LSTM step kernels (ops/rnn/lstm_gates.h), included once per
// ISA by a translation unit compiled with that ISA's flags and ATen's
// CPU_CAPABILITY macros, so at::vec::Vectorized<float> is that ISA's.
#ifndef STATIC_RUNTIME_OPS_RNN_LSTM_GATES_IMPL_H_
#define STATIC_RUNTIME_OPS_RNN_LSTM_GATES_IMPL_H_

#include <cmath>
#include <cstdint>

#include "ATen/cpu/vec/vec.h"
#include "ops/rnn/lstm_gates.h"

namespace static_runtime {
namespace ops {

// One ISA's kernels: the steps, and its sigmoid and tanh alone (for the
// probe).
struct LstmIsaKernels {
  RnnStepFn step;
  RnnStepFn gru_step;
  RnnStepFn tanh_step;
  RnnStepFn relu_step;
  void (*sigmoid_row)(float* data, int64_t n);
  void (*tanh_row)(const float* in, float* out, int64_t n);
  const char* name;
};
// Defined in lstm_gates_avx2.cc and lstm_gates_avx512.cc (the candidates
// of RnnSteps in lstm_gates.h).
LstmIsaKernels LstmKernelsAvx2();
LstmIsaKernels LstmKernelsAvx512();
LstmIsaKernels LstmKernelsAvx512InAvx2Loops();

namespace CPU_CAPABILITY {

using Vec = at::vec::Vectorized<float>;

// ATen's sigmoid kernel on one contiguous row of n elements, in place:
// steps of kChunk elements (two vectors of the ISA ATen runs) by the vector
// functions, the rest by the scalar formula.
template <int64_t kChunk>
inline void SigmoidRow(float* data, int64_t n) {
  static_assert(kChunk % Vec::size() == 0, "a step is whole vectors");
  int64_t i = 0;
  for (; i <= n - kChunk; i += kChunk) {
    for (int64_t part = 0; part < kChunk / Vec::size(); ++part) {
      Vec a = Vec::loadu(data + i + part * Vec::size());
      a = Vec(0.f) - a;
      a = a.exp();
      a = a + Vec(1.f);
      a = a.reciprocal();
      a.store(data + i + part * Vec::size());
    }
  }
  for (; i < n; ++i) data[i] = 1.f / (1.f + std::exp(-data[i]));
}

// ATen's VML tanh on n contiguous elements: every element by the vector
// function, the tail as a partial vector.
inline void TanhRow(const float* in, float* out, int64_t n) {
  int64_t i = 0;
  for (; i < n - (n % Vec::size()); i += Vec::size()) {
    Vec::loadu(in + i).tanh().store(out + i);
  }
  if (n - i > 0) Vec::loadu(in + i, n - i).tanh().store(out + i, n - i);
}

template <int64_t kChunk>
inline void LstmStepImpl(const RnnStep& step) {
  const int64_t h = step.hidden;
  for (int64_t row = 0; row < step.rows; ++row) {
    float* gates = step.hidden_gates + row * 4 * h;
    const float* input_w = step.input_w + row * step.input_w_row_stride;
    for (int64_t j = 0; j < 4 * h; ++j) gates[j] = gates[j] + input_w[j];
    float* in_gate = gates;
    float* forget_gate = gates + h;
    float* cell_gate = gates + 2 * h;
    float* out_gate = gates + 3 * h;
    SigmoidRow<kChunk>(in_gate, h);
    SigmoidRow<kChunk>(forget_gate, h);
    TanhRow(cell_gate, cell_gate, h);
    SigmoidRow<kChunk>(out_gate, h);
    const float* c_prev = step.state_prev + row * step.state_prev_row_stride;
    float* c_next = step.c_next + row * h;
    float* h_next = step.h_next + row * h;
    for (int64_t j = 0; j < h; ++j) {
      const float kept = forget_gate[j] * c_prev[j];
      const float added = in_gate[j] * cell_gate[j];
      c_next[j] = kept + added;
    }
    TanhRow(c_next, h_next, h);
    for (int64_t j = 0; j < h; ++j) h_next[j] = out_gate[j] * h_next[j];
  }
}

template <int64_t kChunk>
inline void GruStepImpl(const RnnStep& step) {
  const int64_t h = step.hidden;
  for (int64_t row = 0; row < step.rows; ++row) {
    float* reset = step.hidden_gates + row * 3 * h;
    float* update = reset + h;
    float* fresh = reset + 2 * h;  // hg_n, then n
    const float* input_w = step.input_w + row * step.input_w_row_stride;
    for (int64_t j = 0; j < 2 * h; ++j) reset[j] = reset[j] + input_w[j];
    SigmoidRow<kChunk>(reset, h);
    SigmoidRow<kChunk>(update, h);
    for (int64_t j = 0; j < h; ++j) {
      const float scaled = fresh[j] * reset[j];
      fresh[j] = input_w[2 * h + j] + scaled;
    }
    TanhRow(fresh, fresh, h);
    const float* h_prev = step.state_prev + row * step.state_prev_row_stride;
    float* h_next = step.h_next + row * h;
    for (int64_t j = 0; j < h; ++j) {
      const float kept = (h_prev[j] - fresh[j]) * update[j];
      h_next[j] = kept + fresh[j];
    }
  }
}

inline void TanhStepImpl(const RnnStep& step) {
  const int64_t h = step.hidden;
  for (int64_t row = 0; row < step.rows; ++row) {
    float* gates = step.hidden_gates + row * h;
    const float* input_w = step.input_w + row * step.input_w_row_stride;
    for (int64_t j = 0; j < h; ++j) gates[j] = gates[j] + input_w[j];
    TanhRow(gates, step.h_next + row * h, h);
  }
}

// ATen's clamp_min(x, 0) kernel's vector function (max(0, x), which keeps a
// NaN and -0 as its scalar std::max(x, 0) does), on every element.
inline void ReluStepImpl(const RnnStep& step) {
  const int64_t h = step.hidden;
  const Vec zero(0.f);
  for (int64_t row = 0; row < step.rows; ++row) {
    const float* gates = step.hidden_gates + row * h;
    const float* input_w = step.input_w + row * step.input_w_row_stride;
    float* h_next = step.h_next + row * h;
    int64_t j = 0;
    for (; j < h - (h % Vec::size()); j += Vec::size()) {
      at::vec::clamp_min(Vec::loadu(gates + j) + Vec::loadu(input_w + j), zero).store(h_next + j);
    }
    if (h - j > 0) {
      const Vec sum = Vec::loadu(gates + j, h - j) + Vec::loadu(input_w + j, h - j);
      at::vec::clamp_min(sum, zero).store(h_next + j, h - j);
    }
  }
}

// The kernels whose sigmoid steps by kChunk elements.
template <int64_t kChunk>
inline LstmIsaKernels Kernels(const char* name) {
  return {LstmStepImpl<kChunk>,
          GruStepImpl<kChunk>,
          TanhStepImpl,
          ReluStepImpl,
          SigmoidRow<kChunk>,
          TanhRow,
          name};
}

}  // namespace CPU_CAPABILITY
}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_RNN_LSTM_GATES_IMPL_H_
