// The declared error bound (ErrorBound in ops/core/registry.h) of the
// fast-gates recurrent kernels (static_runtime::lstm_fast_gates,
// gru_fast_gates, rnn_tanh_fast_gates: ops/rnn/lstm.h; and the cells'), for the differential
// harness and the tests: every element of every output within
//   4 E + 8 eps32 X + 4 P,
// E the largest distance of ATen's own float32 network (the JIT's result)
// from the exact (float64) one over all its outputs, X the largest magnitude
// of the exact outputs, P the largest rounding bound of any of the network's
// matrix products, 2 (K + 2) eps32 (|x| |W|^T + |b|) over every layer's
// inputs and states (the input projections sum in oneDNN's order, not
// BLAS's), eps32 = 2^-23. That is, the fast gates and the other order cost at
// most a few times the rounding the JIT's network already has. Not a proven
// bound: a rigorous one grows by the recurrent weights' magnitude at every
// step and says nothing after a few; the fast functions' own errors are
// bounded and checked on every float magnitude (ops/rnn/lstm_gates.h), and
// //ops/rnn:lstm_test checks this one on random networks with weights of
// nn.LSTM's initialization scale (3 x 1500 networks, on AVX-512 and AVX2
// oneDNN: at most 0.04 of it used; ours as far from exact as ATen's at the
// median, 1.5x at the 90th percentile). A network whose gates saturate and
// whose float32 rounding grows chaotically (weights of standard deviation 2:
// ATen's own error 5e-3 on outputs within +-1) can exceed it, as any other
// order of the sums could; --prepack-weights=false gives ATen's bits there.
#ifndef STATIC_RUNTIME_OPS_RNN_RNN_ERROR_BOUND_H_
#define STATIC_RUNTIME_OPS_RNN_RNN_ERROR_BOUND_H_

#include <vector>

#include "ATen/ATen.h"
#include "ATen/core/ivalue.h"
#include "ops/rnn/lstm.h"

namespace static_runtime {
namespace ops {

// `inputs`: the node's (those of aten::lstm, gru or rnn_tanh's .input
// overload, or of the .data overload when `packed`); the result has the
// sizes of `exact` (float64).
at::Tensor FastGatesErrorBound(FrozenRnn::Cell cell, bool packed,
                               const std::vector<c10::IValue>& inputs, const at::Tensor& exact);

// The same for one step of a fast-gates cell (static_runtime::lstm_cell_fast_gates,
// gru_cell_fast_gates; `cell` kLstm or kGru; `inputs` those of aten::lstm_cell or
// aten::gru_cell): E ATen's cell's, P its two products'.
at::Tensor FastCellErrorBound(FrozenRnn::Cell cell, const std::vector<c10::IValue>& inputs,
                              const at::Tensor& exact);

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_RNN_RNN_ERROR_BOUND_H_
