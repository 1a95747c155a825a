// The body of the LSTM step kernels (ops/rnn/lstm_gates.h), included once per
// ISA by a translation unit compiled with that ISA's flags and ATen's
// CPU_CAPABILITY macros, so at::vec::Vectorized<float> is that ISA's.
#ifndef STATIC_RUNTIME_OPS_RNN_LSTM_GATES_IMPL_H_
#define STATIC_RUNTIME_OPS_RNN_LSTM_GATES_IMPL_H_

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "ATen/cpu/vec/vec.h"
#include "ops/rnn/fast_gate_math.h"
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
// The fast-gates steps of each ISA (FastRnnSteps in lstm_gates.h).
FastRnnSteps FastRnnStepsAvx2();
FastRnnSteps FastRnnStepsAvx512();

namespace CPU_CAPABILITY {

using Vec = at::vec::Vectorized<float>;

// ATen's vector sigmoid: 1 / (1 + exp(-x)), each step one rounding.
inline Vec SigmoidVec(Vec a) {
  a = Vec(0.f) - a;
  a = a.exp();
  a = a + Vec(1.f);
  return a.reciprocal();
}

// ATen's scalar sigmoid (the end of a row its vector loop leaves), on each
// of the first `count` lanes.
inline Vec SigmoidScalar(const Vec& x, int64_t count) {
  alignas(64) float lane[Vec::size()];
  x.store(lane);
  for (int64_t l = 0; l < count; ++l) lane[l] = 1.f / (1.f + std::exp(-lane[l]));
  return Vec::loadu(lane);
}

// ATen's sigmoid kernel on one contiguous row of n elements, in place:
// steps of kChunk elements (two vectors of the ISA ATen runs) by the vector
// functions, the rest by the scalar formula.
template <int64_t kChunk>
inline void SigmoidRow(float* data, int64_t n) {
  static_assert(kChunk % Vec::size() == 0, "a step is whole vectors");
  const int64_t vector_end = n - n % kChunk;
  int64_t i = 0;
  for (; i < vector_end; i += Vec::size()) SigmoidVec(Vec::loadu(data + i)).store(data + i);
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

// Gate g of a row's units j..j+count: its hidden product plus its input
// projection (a partial vector at the row's end).
inline Vec GateSum(const float* hidden_gates, const float* input_w, int64_t h, int64_t g, int64_t j,
                   int64_t count) {
  return Vec::loadu(hidden_gates + g * h + j, count) + Vec::loadu(input_w + g * h + j, count);
}

// A gate's sigmoid as ATen's loop takes it: the vector function on whole
// chunks of the row, the scalar formula on the rest.
inline Vec GateSigmoid(const Vec& x, bool vector, int64_t count) {
  return vector ? SigmoidVec(x) : SigmoidScalar(x, count);
}

// One step, one pass over each row: Vec::size() units at a time, each
// gate's sigmoid by the vector function on the first `vector_end` units of
// the row (whole steps of kChunk, as ATen's loop goes) and by the scalar
// formula on the rest.
template <int64_t kChunk>
inline void LstmStepImpl(const RnnStep& step) {
  constexpr int64_t kLanes = Vec::size();
  const int64_t h = step.hidden;
  const int64_t vector_end = h - h % kChunk;
  for (int64_t row = 0; row < step.rows; ++row) {
    const float* gates = step.hidden_gates + row * 4 * h;
    const float* input_w = step.input_w + row * step.input_w_row_stride;
    const float* c_prev = step.state_prev + row * step.state_prev_row_stride;
    float* c_next = step.c_next + row * h;
    float* h_next = step.h_next + row * h;
    for (int64_t j = 0; j < h; j += kLanes) {
      const int64_t count = std::min(kLanes, h - j);
      const auto gate = [&](int64_t g) { return GateSum(gates, input_w, h, g, j, count); };
      const bool vector = j < vector_end;
      const Vec in_gate = GateSigmoid(gate(0), vector, count);
      const Vec forget_gate = GateSigmoid(gate(1), vector, count);
      const Vec cell_gate = gate(2).tanh();
      const Vec out_gate = GateSigmoid(gate(3), vector, count);
      const Vec kept = forget_gate * Vec::loadu(c_prev + j, count);
      const Vec added = in_gate * cell_gate;
      const Vec c = kept + added;
      c.store(c_next + j, count);
      (out_gate * c.tanh()).store(h_next + j, count);
    }
  }
}

// One step, one pass over each row, the sigmoids split as the LSTM's.
template <int64_t kChunk>
inline void GruStepImpl(const RnnStep& step) {
  constexpr int64_t kLanes = Vec::size();
  const int64_t h = step.hidden;
  const int64_t vector_end = h - h % kChunk;
  for (int64_t row = 0; row < step.rows; ++row) {
    const float* gates = step.hidden_gates + row * 3 * h;
    const float* input_w = step.input_w + row * step.input_w_row_stride;
    const float* h_prev = step.state_prev + row * step.state_prev_row_stride;
    float* h_next = step.h_next + row * h;
    for (int64_t j = 0; j < h; j += kLanes) {
      const int64_t count = std::min(kLanes, h - j);
      const bool vector = j < vector_end;
      const Vec reset = GateSigmoid(GateSum(gates, input_w, h, 0, j, count), vector, count);
      const Vec update = GateSigmoid(GateSum(gates, input_w, h, 1, j, count), vector, count);
      const Vec scaled = Vec::loadu(gates + 2 * h + j, count) * reset;
      const Vec fresh = (Vec::loadu(input_w + 2 * h + j, count) + scaled).tanh();
      const Vec kept = (Vec::loadu(h_prev + j, count) - fresh) * update;
      (kept + fresh).store(h_next + j, count);
    }
  }
}

inline void TanhStepImpl(const RnnStep& step) {
  constexpr int64_t kLanes = Vec::size();
  const int64_t h = step.hidden;
  for (int64_t row = 0; row < step.rows; ++row) {
    const float* gates = step.hidden_gates + row * h;
    const float* input_w = step.input_w + row * step.input_w_row_stride;
    float* h_next = step.h_next + row * h;
    for (int64_t j = 0; j < h; j += kLanes) {
      const int64_t count = std::min(kLanes, h - j);
      (Vec::loadu(gates + j, count) + Vec::loadu(input_w + j, count))
          .tanh()
          .store(h_next + j, count);
    }
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

// The fast-gates steps (fast_gate_math.h's functions). Each row in two
// passes: first every gate's activation, then the state update. A pass
// evaluates one function on vector after vector, independent of each other,
// so that the CPU overlaps their long chains of dependent instructions (in
// one pass per vector as above, five chains follow one another). The same
// operations on each element as the steps above.

// out[j] = kFunction(gates[j] + input_w[j]) for j < n (out may be gates).
template <Vec (*kFunction)(const Vec&)>
inline void ActivatedSum(const float* gates, const float* input_w, int64_t n, float* out) {
  for (int64_t j = 0; j < n; j += Vec::size()) {
    const int64_t count = std::min<int64_t>(Vec::size(), n - j);
    kFunction(Vec::loadu(gates + j, count) + Vec::loadu(input_w + j, count)).store(out + j, count);
  }
}

inline void FastLstmStep(const RnnStep& step) {
  const int64_t h = step.hidden;
  for (int64_t row = 0; row < step.rows; ++row) {
    float* gates = step.hidden_gates + row * 4 * h;
    const float* input_w = step.input_w + row * step.input_w_row_stride;
    const float* c_prev = step.state_prev + row * step.state_prev_row_stride;
    float* c_next = step.c_next + row * h;
    float* h_next = step.h_next + row * h;
    ActivatedSum<FastSigmoid>(gates, input_w, 2 * h, gates);  // input and forget gates
    ActivatedSum<FastTanh>(gates + 2 * h, input_w + 2 * h, h, gates + 2 * h);
    ActivatedSum<FastSigmoid>(gates + 3 * h, input_w + 3 * h, h, gates + 3 * h);
    for (int64_t j = 0; j < h; j += Vec::size()) {
      const int64_t count = std::min<int64_t>(Vec::size(), h - j);
      const Vec kept = Vec::loadu(gates + h + j, count) * Vec::loadu(c_prev + j, count);
      const Vec added = Vec::loadu(gates + j, count) * Vec::loadu(gates + 2 * h + j, count);
      const Vec c = kept + added;
      c.store(c_next + j, count);
      (Vec::loadu(gates + 3 * h + j, count) * FastTanh(c)).store(h_next + j, count);
    }
  }
}

inline void FastGruStep(const RnnStep& step) {
  const int64_t h = step.hidden;
  for (int64_t row = 0; row < step.rows; ++row) {
    float* gates = step.hidden_gates + row * 3 * h;
    const float* input_w = step.input_w + row * step.input_w_row_stride;
    const float* h_prev = step.state_prev + row * step.state_prev_row_stride;
    float* h_next = step.h_next + row * h;
    ActivatedSum<FastSigmoid>(gates, input_w, 2 * h, gates);  // reset and update gates
    for (int64_t j = 0; j < h; j += Vec::size()) {
      const int64_t count = std::min<int64_t>(Vec::size(), h - j);
      const Vec scaled = Vec::loadu(gates + 2 * h + j, count) * Vec::loadu(gates + j, count);
      const Vec fresh = FastTanh(Vec::loadu(input_w + 2 * h + j, count) + scaled);
      const Vec kept = (Vec::loadu(h_prev + j, count) - fresh) * Vec::loadu(gates + h + j, count);
      (kept + fresh).store(h_next + j, count);
    }
  }
}

inline void FastTanhStep(const RnnStep& step) {
  for (int64_t row = 0; row < step.rows; ++row) {
    ActivatedSum<FastTanh>(step.hidden_gates + row * step.hidden,
                           step.input_w + row * step.input_w_row_stride, step.hidden,
                           step.h_next + row * step.hidden);
  }
}

// A row of n elements through one of the fast functions.
template <Vec (*kFunction)(const Vec&)>
inline void FastRow(const float* in, float* out, int64_t n) {
  for (int64_t i = 0; i < n; i += Vec::size()) {
    const int64_t count = std::min<int64_t>(Vec::size(), n - i);
    kFunction(Vec::loadu(in + i, count)).store(out + i, count);
  }
}

inline FastRnnSteps FastKernels(const char* name) {
  return {RnnSteps{FastLstmStep, FastGruStep, FastTanhStep, ReluStepImpl, name}, FastRow<FastTanh>,
          FastRow<FastSigmoid>};
}

}  // namespace CPU_CAPABILITY
}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_RNN_LSTM_GATES_IMPL_H_
