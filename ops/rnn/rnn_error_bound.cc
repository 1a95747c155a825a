#include "ops/rnn/rnn_error_bound.h"

#include <algorithm>
#include <tuple>

namespace static_runtime {
namespace ops {
namespace {

constexpr double kEps32 = 1.0 / (1 << 23);

// ATen's network of `cell` on the node's inputs, its float tensors in
// `dtype`: its outputs.
std::vector<at::Tensor> AtenNetwork(FrozenRnn::Cell cell, bool packed,
                                    const std::vector<c10::IValue>& inputs, at::ScalarType dtype) {
  const auto in = [dtype](const at::Tensor& tensor) { return tensor.to(dtype); };
  const size_t hx = packed ? 2 : 1;
  std::vector<at::Tensor> params = inputs[hx + 1].toTensorVector();
  for (at::Tensor& param : params) param = in(param);
  const bool has_biases = inputs[hx + 2].toBool();
  const int64_t layers = inputs[hx + 3].toInt();
  const double dropout = inputs[hx + 4].toDouble();
  const bool train = inputs[hx + 5].toBool();
  const bool bidirectional = inputs[hx + 6].toBool();
  const at::Tensor x = in(inputs[0].toTensor());
  if (cell == FrozenRnn::Cell::kLstm) {
    std::vector<at::Tensor> states = inputs[hx].toTensorVector();
    for (at::Tensor& state : states) state = in(state);
    const auto [output, h_n, c_n] =
        packed ? at::lstm(x, inputs[1].toTensor(), states, params, has_biases, layers, dropout,
                          train, bidirectional)
               : at::lstm(x, states, params, has_biases, layers, dropout, train, bidirectional,
                          inputs[8].toBool());
    return {output, h_n, c_n};
  }
  const at::Tensor h0 = in(inputs[hx].toTensor());
  const bool gru = cell == FrozenRnn::Cell::kGru;
  std::tuple<at::Tensor, at::Tensor> result;
  if (packed) {
    result = gru ? at::gru(x, inputs[1].toTensor(), h0, params, has_biases, layers, dropout, train,
                           bidirectional)
                 : at::rnn_tanh(x, inputs[1].toTensor(), h0, params, has_biases, layers, dropout,
                                train, bidirectional);
  } else {
    const bool batch_first = inputs[8].toBool();
    result =
        gru ? at::gru(x, h0, params, has_biases, layers, dropout, train, bidirectional, batch_first)
            : at::rnn_tanh(x, h0, params, has_biases, layers, dropout, train, bidirectional,
                           batch_first);
  }
  return {std::get<0>(result), std::get<1>(result)};
}

}  // namespace

at::Tensor FastGatesErrorBound(FrozenRnn::Cell cell, bool packed,
                               const std::vector<c10::IValue>& inputs, const at::Tensor& exact) {
  const std::vector<at::Tensor> floats = AtenNetwork(cell, packed, inputs, at::kFloat);
  const std::vector<at::Tensor> exacts = AtenNetwork(cell, packed, inputs, at::kDouble);
  double aten_error = 0, magnitude = 0;
  for (size_t i = 0; i < floats.size(); ++i) {
    if (exacts[i].numel() == 0) continue;
    aten_error =
        std::max(aten_error, (floats[i].to(at::kDouble) - exacts[i]).abs().max().item<double>());
    magnitude = std::max(magnitude, exacts[i].abs().max().item<double>());
  }
  return at::full_like(exact, 4 * aten_error + 8 * kEps32 * magnitude,
                       exact.options().dtype(at::kDouble));
}

}  // namespace ops
}  // namespace static_runtime
