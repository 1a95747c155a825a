// The ops with frozen weights whose kernels pre-pack them (Options::
// prepack_weights): convolutions, linears and transformer encoder layers.
//
// FuseConvolutions: every aten::conv2d whose weight, bias and hyper-parameters
// are constants (a frozen model's convolutions) becomes one
// static_runtime::conv2d_fused node, which the runtime binds to a kernel with
// pre-packed weights. Absorbed into that node when the convolution's result
// has no other use:
//   - a residual add `conv + r` or `r + conv` (aten::add.Tensor, alpha 1),
//   - then one activation: relu, hardtanh(min, max) (relu6), hardswish,
//     hardsigmoid, sigmoid, silu or gelu (approximate 'none').
// Absorbed intermediates have a single use, so nobody can observe that they
// are never materialized. An aten::conv1d with constant weight, bias and
// int-list hyper-parameters first becomes what ATen computes for it, a conv2d
// over a 1-high image between aten::unsqueeze and aten::squeeze (views), so
// it gets the same kernel; an activation that is the conv1d's only use moves
// before the squeeze (elementwise, it commutes with it) and is absorbed too.
// Before that, padding="valid" and padding="same" (the `padding` overloads)
// become the integer padding ATen itself uses, where ATen pads symmetrically
// ("same" with an odd total padding, where ATen pads the input first, stays). The fused node
// computes exactly what the absorbed ops compute (ops::Conv2dFusedReference in
// ir/operators/operators.h).
#ifndef STATIC_RUNTIME_PASSES_PREPACK_WEIGHTS_H_
#define STATIC_RUNTIME_PASSES_PREPACK_WEIGHTS_H_

#include <memory>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Returns true if the graph changed.
bool FuseConvolutions(const std::shared_ptr<torch::jit::Graph>& graph);

// FuseLinears: every aten::linear whose weight and bias are constants becomes
// one static_runtime::linear_fused node (pre-packed weights), absorbing one
// following activation (conv2d_fused's list) when the linear's result has no
// other use. So does a product x @ W (aten::matmul) by a constant float
// matrix W, as the linear of weight W^T without bias. Returns true if the graph changed.
bool FuseLinears(const std::shared_ptr<torch::jit::Graph>& graph);

// PrepackTransformerLayers: every aten::_transformer_encoder_layer_fwd (what
// nn.TransformerEncoderLayer runs in eval mode, batch_first, on its fast
// path) whose weights, biases, norm parameters and hyper-parameters are
// constants becomes static_runtime::transformer_encoder_layer (same
// arguments), whose kernel runs the four matrix products on pre-packed
// weights; every aten::_native_multi_head_attention (nn.MultiheadAttention's
// fast path) with constant weights, biases and sizes and need_weights false
// becomes static_runtime::multi_head_attention, whose kernel runs its two
// projections on pre-packed weights. Returns true if the graph changed.
bool PrepackTransformerLayers(const std::shared_ptr<torch::jit::Graph>& graph);

// UseFastRnnGates: every aten::lstm, aten::gru and aten::rnn_tanh (the
// .input and .data overloads) whose parameters and later arguments are
// constants (a frozen nn.LSTM, nn.GRU, nn.RNN with tanh) becomes
// static_runtime::lstm_fast_gates, gru_fast_gates, rnn_tanh_fast_gates (same
// arguments), and every aten::lstm_cell and aten::gru_cell whose weights and
// biases are constants (a frozen nn.LSTMCell, nn.GRUCell) becomes
// static_runtime::lstm_cell_fast_gates, gru_cell_fast_gates, whose kernels
// compute the gates' sigmoid and tanh by faster functions than ATen's,
// within their declared bound
// (ops/rnn/lstm.h, ops/rnn/rnn_cells.cc).
// Returns true if the graph changed.
bool UseFastRnnGates(const std::shared_ptr<torch::jit::Graph>& graph);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_PREPACK_WEIGHTS_H_
