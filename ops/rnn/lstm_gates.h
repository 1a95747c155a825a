// The elementwise part of one LSTM (or GRU, below) time step, computed as
// ATen's CPU cell computes it, bit for bit, in one pass instead of eleven
// (nine) ATen ops.
//
// ATen's cell (aten/src/ATen/native/RNN.cpp, LSTMCell with a pre-computed
// input projection) does, on gates = h W_hh^T + b_hh ([rows, 4H]):
//   gates.add_(input_w); i, f, g, o = gates.chunk(4, 1)
//   i.sigmoid_(); f.sigmoid_(); g.tanh_(); o.sigmoid_()
//   c' = f.mul(c).add_(i.mul(g)); h' = o.mul(c'.tanh())
// Each add and mul is one IEEE rounding, so any order of elements gives the
// same bits. sigmoid runs ATen's vectorized loop over each row of H: pairs
// of vectors, then the scalar formula 1 / (1 + exp(-x)) for the rest of the
// row. tanh runs ATen's VML path: every element through the vector tanh
// (a partial vector for the tail). Both use the vector math of the
// Vectorized<float> that ATen's dispatch picked for this CPU (AVX2 or
// AVX512, Sleef's u10 functions), so these kernels exist once per ISA. Which
// one ATen runs is not public (Debian's LibTorch runs AVX2 on AVX512 CPUs),
// so at first use a probe compares each ISA's sigmoid and tanh with ATen's
// on rows whose vector/scalar split differs between ISAs, and the one that
// matches bit for bit is used; with none, ATen's own LSTM runs.
// Compiled without floating-point contraction (no fused multiply-add where
// ATen rounds twice).
#ifndef STATIC_RUNTIME_OPS_RNN_LSTM_GATES_H_
#define STATIC_RUNTIME_OPS_RNN_LSTM_GATES_H_

#include <cstdint>
#include <vector>

namespace static_runtime {
namespace ops {

// One GRU time step, as ATen's GRUCell with a pre-computed input projection
// does it on hgates = h W_hh^T + b_hh ([rows, 3H]) and igates:
//   r = (hg_r.add_(ig_r)).sigmoid_(); z = (hg_z.add_(ig_z)).sigmoid_()
//   n = ig_n.add(hg_n.mul_(r)).tanh_(); h' = (h - n).mul_(z).add_(n)
// sigmoid row by row of H (the chunks are views), tanh by the vector
// function everywhere, each add and mul one rounding.
//
// One nn.RNN time step, as ATen's SimpleCell does it on hgates = h W_hh^T +
// b_hh ([rows, H]): h' = tanh(hgates.add_(igates)) (tanh by the vector
// function everywhere), or clamp_min(., 0) for relu (x < 0 ? +0 : x, NaN
// and -0 kept).
//
// The operands of one step over `rows` rows of H units, with G gates (4 for
// an LSTM, 3 for a GRU, 1 for an RNN).
struct RnnStep {
  float* hidden_gates;   // [rows, G*H], contiguous: h W_hh^T + b_hh
  const float* input_w;  // [rows, G*H], last dimension contiguous: x W_ih^T + b_ih
  int64_t input_w_row_stride;
  const float* state_prev;  // [rows, H], last dimension contiguous: c (LSTM), h (GRU)
  int64_t state_prev_row_stride;
  float* c_next;  // LSTM: [rows, H], contiguous (may be state_prev); GRU: unused
  float* h_next;  // [rows, H], contiguous
  int64_t rows;
  int64_t hidden;  // H
};

using RnnStepFn = void (*)(const RnnStep& step);

// The step kernels of the ISA whose sigmoid and tanh match ATen's own on
// this CPU, or nullptr when none does (ATen runs its scalar DEFAULT
// kernels, or the probe failed).
// Candidates, first match taken: ATen's AVX512 loops; ATen's AVX2 loops
// (the sigmoid in steps of 16 elements) on AVX512 vectors, which is what
// Debian's LibTorch (AVX2 kernels) gets on an AVX512 CPU: Sleef's 16-lane
// tanh and exp equal its 8-lane ones on every float (checked exhaustively,
// and the probe checks again), and tanh dominates the step; then ATen's
// AVX2 loops on AVX2 vectors.
struct RnnSteps {
  RnnStepFn lstm = nullptr;
  RnnStepFn gru = nullptr;
  RnnStepFn rnn_tanh = nullptr;
  RnnStepFn rnn_relu = nullptr;
  const char* name = "none";  // "avx512", "avx512 in avx2 loops", "avx2" or "none"
};
const RnnSteps& RnnStepsForThisCpu();
inline RnnStepFn LstmStepForThisCpu() { return RnnStepsForThisCpu().lstm; }

// The same steps with our own sigmoid and tanh (ops/rnn/fast_gate_math.h:
// within kFastSigmoidError and kFastTanhError eps32 of the exact functions,
// several times faster than ATen's) on every element, for the fast-gates
// kernels (static_runtime::lstm_fast_gates and the like, ops/rnn/lstm.h); the
// adds and products as above. Not ATen's bits.
// Their bounds, in units of eps32 = 2^-23 (ops/rnn/fast_gate_math.h).
constexpr double kFastTanhError = 4;
constexpr double kFastSigmoidError = 4;
struct FastRnnSteps {
  RnnSteps steps;
  // The two functions alone on n contiguous elements (for tests).
  void (*tanh_row)(const float* in, float* out, int64_t n) = nullptr;
  void (*sigmoid_row)(const float* in, float* out, int64_t n) = nullptr;
};
// Those of every ISA this CPU runs, AVX512 vectors before AVX2 ones; none on
// a CPU without AVX2.
const std::vector<FastRnnSteps>& FastRnnStepsThisCpuRuns();
// The first of them; steps all null (and name "none") when there are none.
const FastRnnSteps& FastRnnStepsForThisCpu();

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_RNN_LSTM_GATES_H_
