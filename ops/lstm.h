// aten::lstm.input, aten::gru.input, aten::rnn_tanh.input and
// aten::rnn_relu.input with frozen weights (the `_flat_weights` constant of
// a frozen nn.LSTM, nn.GRU or nn.RNN): the same results as ATen's CPU
// networks, bit for bit, with ATen's own GEMMs (the input projection of all
// time steps at once, then h W_hh^T + b_hh per step into one reused buffer)
// and the elementwise part of each step in one pass for the LSTM and GRU
// (ops/lstm_gates.h) instead of ATen's eleven (nine) ops and their
// allocations; an nn.RNN step is ATen's own add and tanh (clamp_min for
// relu) into reused buffers. Multi-layer and bidirectional, batch_first,
// with or without biases. Not taken (ATen runs instead, with its result or error):
// projections (proj_size), dropout in training mode, inputs that are not
// float32 CPU tensors of the shapes ATen accepts, empty sequences or
// batches, CPUs on which ATen runs its scalar kernels, and rows of gates
// large enough for ATen to split its sigmoid across threads.
#ifndef STATIC_RUNTIME_OPS_LSTM_H_
#define STATIC_RUNTIME_OPS_LSTM_H_

#include <optional>
#include <tuple>
#include <vector>

#include "ATen/ATen.h"
#include "ops/lstm_gates.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {
namespace ops {

// A tensor the RNN kernels compute on (here and in ops/rnn_cells.cc): a
// float32 strided CPU tensor, not a lazily negated or conjugated view.
bool IsFloatCpu(const at::Tensor& tensor);

class FrozenRnn {
 public:
  enum class Cell { kLstm, kGru, kRnnTanh, kRnnRelu };

  // nullopt when the node's parameters (input 2) and arguments 3..8 are not
  // constants, or describe a network this kernel does not take.
  static std::optional<FrozenRnn> FromNode(const torch::jit::Node* node, Cell cell);

  // The network of these weights on `input` and hx = (h0, c0) (an LSTM) or
  // h0 (a GRU or RNN; c0 undefined), as (output, h_n, c_n) (c_n undefined
  // but for an LSTM); nullopt when these inputs are not ones it takes.
  std::optional<std::tuple<at::Tensor, at::Tensor, at::Tensor>> Run(const at::Tensor& input,
                                                                    const at::Tensor& h0,
                                                                    const at::Tensor& c0) const;

 private:
  struct Weights {
    at::Tensor w_ih, w_hh_t, b_ih, b_hh;  // biases undefined without biases
  };
  FrozenRnn(Cell cell, std::vector<Weights> weights, int64_t num_layers, bool bidirectional,
            bool batch_first, RnnSteps steps)
      : cell_(cell),
        weights_(std::move(weights)),
        num_layers_(num_layers),
        bidirectional_(bidirectional),
        batch_first_(batch_first),
        steps_(steps) {}

  // Runs one direction of one layer over `input` ([T, B, I]), writing
  // h of step t into output[t, :, column:column + H]; returns (h_n, c_n)
  // (c_n undefined but for an LSTM).
  std::pair<at::Tensor, at::Tensor> RunDirection(const Weights& weights, const at::Tensor& input,
                                                 const at::Tensor& h0, const at::Tensor& c0,
                                                 bool reverse, at::Tensor& output,
                                                 int64_t column) const;

  Cell cell_;
  std::vector<Weights> weights_;  // per layer, then direction
  int64_t num_layers_;
  bool bidirectional_;
  bool batch_first_;
  RnnSteps steps_;
};

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_LSTM_H_
