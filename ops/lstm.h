// aten::lstm.input with frozen weights (the `_flat_weights` constant of a
// frozen nn.LSTM): the same results as ATen's CPU LSTM, bit for bit, with
// ATen's own GEMMs (the input projection of all time steps at once, then
// h W_hh^T + b_hh per step into one reused buffer) and the elementwise part
// of each step in one pass (ops/lstm_gates.h) instead of ATen's eleven ops
// and their allocations. Multi-layer and bidirectional LSTMs, batch_first,
// with or without biases. Not taken (ATen runs instead, with its result or
// error): projections (proj_size), dropout in training mode, inputs that are
// not float32 CPU tensors of the shapes ATen accepts, empty sequences or
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

class FrozenLstm {
 public:
  // nullopt when the node's parameters (input 2) and arguments 3..8 are not
  // constants, or describe an LSTM this kernel does not take.
  static std::optional<FrozenLstm> FromNode(const torch::jit::Node* node);

  // The LSTM of these weights on `input` and hx = (h0, c0), as
  // (output, h_n, c_n); nullopt when these inputs are not ones it takes.
  std::optional<std::tuple<at::Tensor, at::Tensor, at::Tensor>> Run(
      const at::Tensor& input, const at::Tensor& h0, const at::Tensor& c0) const;

 private:
  struct Weights {
    at::Tensor w_ih, w_hh_t, b_ih, b_hh;  // biases undefined without biases
  };
  FrozenLstm(std::vector<Weights> weights, int64_t num_layers, bool bidirectional,
             bool batch_first, LstmStepFn step)
      : weights_(std::move(weights)),
        num_layers_(num_layers),
        bidirectional_(bidirectional),
        batch_first_(batch_first),
        step_(step) {}

  // Runs one direction of one layer over `input` ([T, B, I]), writing
  // h of step t into output[t, :, column:column + H]; returns (h_n, c_n).
  std::pair<at::Tensor, at::Tensor> RunDirection(const Weights& weights, const at::Tensor& input,
                                                 const at::Tensor& h0, const at::Tensor& c0,
                                                 bool reverse, at::Tensor& output,
                                                 int64_t column) const;

  std::vector<Weights> weights_;  // per layer, then direction
  int64_t num_layers_;
  bool bidirectional_;
  bool batch_first_;
  LstmStepFn step_;
};

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_LSTM_H_
