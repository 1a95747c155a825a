// aten::lstm, aten::gru, aten::rnn_tanh and aten::rnn_relu with frozen
// weights (the `_flat_weights` constant of a frozen nn.LSTM, nn.GRU or
// nn.RNN), on padded batches (the .input overloads) and on packed sequences
// (the .data overloads: nn.utils.rnn.pack_padded_sequence's data and batch
// sizes): the same results as ATen's CPU networks, bit for bit, with ATen's
// own GEMMs (the input projection of all time steps at once, then
// h W_hh^T + b_hh per step into one reused buffer, on a packed step's first
// batch_sizes[t] rows as ATen slices them; that product replicated in
// BLAS's order where ops/blas_replica/replicated_linear.h proves it) and the elementwise part of
// each step in one pass for the LSTM and GRU (ops/rnn/lstm_gates.h) instead of ATen's eleven (nine)
// ops and their allocations, and for nn.RNN in one pass instead of ATen's add and tanh (clamp_min
// for relu). A packed sequence's state stays in its row once it ends (forwards) or is taken from h0
// when it starts (backwards), as ATen slices and concatenates it. Multi-layer and bidirectional,
// batch_first, with or without biases, and LSTMs with projections (proj_size: each step's h
// multiplied by W_hr^T as ATen's matmul_hr does, replicated as the step's product is). Not taken
// (ATen runs instead, with its result or error): dropout in training mode, inputs that are not
// float32 CPU tensors of the shapes ATen accepts, batch sizes that are not a non-increasing run of
// positive counts adding up to the data's rows, empty sequences or batches, CPUs on which ATen runs
// its scalar kernels, and rows of gates large enough for ATen to split its sigmoid across threads.
// static_runtime::lstm_fast_gates, gru_fast_gates and rnn_tanh_fast_gates
// (passes/prepack_weights.h: the same networks, frozen) run the same way with our own sigmoid and
// tanh in the steps (FastRnnSteps in ops/rnn/lstm_gates.h), within the error bound of
// ops/rnn/rnn_error_bound.h.
#ifndef STATIC_RUNTIME_OPS_RNN_LSTM_H_
#define STATIC_RUNTIME_OPS_RNN_LSTM_H_

#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "ATen/ATen.h"
#include "ops/blas_replica/replicated_linear.h"
#include "ops/linalg/onednn_matmul.h"
#include "ops/rnn/lstm_gates.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {
namespace ops {

// A tensor the RNN kernels compute on (here and in ops/rnn/rnn_cells.cc): a
// float32 strided CPU tensor, not a lazily negated or conjugated view.
bool IsFloatCpu(const at::Tensor& tensor);

class FrozenRnn {
 public:
  enum class Cell { kLstm, kGru, kRnnTanh, kRnnRelu };

  // nullopt when the node's parameters and the arguments after them are not
  // constants, or describe a network this kernel does not take. `packed`:
  // the node is a .data overload (data, batch_sizes, hx, params, ...), else
  // an .input one (input, hx, params, ..., batch_first).
  // `fast_gates`: the steps' sigmoid and tanh are our faster functions
  // (FastRnnSteps in ops/rnn/lstm_gates.h) where the CPU has them, within
  // the bound of ops/rnn/rnn_error_bound.h, not ATen's bits.
  static std::optional<FrozenRnn> FromNode(const torch::jit::Node* node, Cell cell, bool packed,
                                           bool fast_gates = false);

  // The network of these weights on `input` and hx = (h0, c0) (an LSTM) or
  // h0 (a GRU or RNN; c0 undefined), as (output, h_n, c_n) (c_n undefined
  // but for an LSTM); nullopt when these inputs are not ones it takes.
  std::optional<std::tuple<at::Tensor, at::Tensor, at::Tensor>> Run(const at::Tensor& input,
                                                                    const at::Tensor& h0,
                                                                    const at::Tensor& c0) const;

  // The same on packed sequences: `data` [N, I] and `batch_sizes` (int64
  // [T]), as (output data [N, directions H], h_n, c_n).
  std::optional<std::tuple<at::Tensor, at::Tensor, at::Tensor>> RunPacked(
      const at::Tensor& data, const at::Tensor& batch_sizes, const at::Tensor& h0,
      const at::Tensor& c0) const;

 private:
  struct Weights {
    at::Tensor w_ih, b_ih;  // b_ih undefined without biases
    // h W_hh^T + b_hh, as ATen's addmm (mm without biases) gives it.
    std::shared_ptr<const ReplicatedLinear> hh;
    // An LSTM's projection h W_hr^T, as ATen's matmul_hr (mm) gives it; null
    // without projections.
    std::shared_ptr<const ReplicatedLinear> hr;
    int64_t hidden;
    int64_t state;  // h's size: the projection's, else hidden
    // With fast gates, w_ih and b_ih packed for oneDNN's matmul, which
    // projects the inputs instead of ATen's linear (null otherwise).
    std::shared_ptr<onednn::PackedLinear> ih_packed;
  };
  FrozenRnn(Cell cell, std::vector<Weights> weights, int64_t num_layers, bool bidirectional,
            bool batch_first, RnnSteps steps)
      : cell_(cell),
        weights_(std::move(weights)),
        num_layers_(num_layers),
        bidirectional_(bidirectional),
        batch_first_(batch_first),
        steps_(steps) {}

  // Which rows each step works on. Padded: every step all `batch` rows of
  // [T, B, .] tensors. Packed (`batch_sizes` set): step t the first
  // batch_sizes[t] sequences, whose rows of [N, .] tensors start at
  // offsets[t].
  struct Schedule {
    int64_t steps = 0, batch = 0;
    const int64_t* batch_sizes = nullptr;
    std::vector<int64_t> offsets;
    int64_t Rows(int64_t t) const { return batch_sizes != nullptr ? batch_sizes[t] : batch; }
  };

  // Whether Run takes inputs of `input_size` features, `batch` sequences and
  // these initial states.
  bool Takes(int64_t input_size, int64_t batch, const at::Tensor& h0, const at::Tensor& c0) const;

  // The layers over `x` (time-major, [T, B, I] or packed [N, I]) with the
  // initial states h0 ([layers * directions, B, state]) and c0 ([..., H]).
  std::tuple<at::Tensor, at::Tensor, at::Tensor> RunLayers(const at::Tensor& x,
                                                           const Schedule& schedule,
                                                           const at::Tensor& h0,
                                                           const at::Tensor& c0) const;

  // Runs one direction of one layer over `input`, writing h of each step
  // into its rows of `output` at columns column .. column + state; returns
  // (h_n, c_n) (c_n undefined but for an LSTM).
  std::pair<at::Tensor, at::Tensor> RunDirection(const Weights& weights, const at::Tensor& input,
                                                 const Schedule& schedule, const at::Tensor& h0,
                                                 const at::Tensor& c0, bool reverse,
                                                 at::Tensor& output, int64_t column) const;

  Cell cell_;
  std::vector<Weights> weights_;  // per layer, then direction
  int64_t num_layers_;
  bool bidirectional_;
  bool batch_first_;
  RnnSteps steps_;
};

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_RNN_LSTM_H_
