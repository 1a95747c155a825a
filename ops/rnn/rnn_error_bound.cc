#include "ops/rnn/rnn_error_bound.h"

#include <algorithm>
#include <optional>
#include <tuple>

namespace static_runtime {
namespace ops {
namespace {

constexpr double kEps32 = 1.0 / (1 << 23);

// ATen's network of `cell` on the node's inputs, its float tensors in
// `dtype`: its outputs. With `layer` set, that layer alone (one layer's
// parameters and initial states) on `layer_input` instead of the input.
std::vector<at::Tensor> AtenNetwork(FrozenRnn::Cell cell, bool packed,
                                    const std::vector<c10::IValue>& inputs, at::ScalarType dtype,
                                    std::optional<int64_t> layer = std::nullopt,
                                    const at::Tensor& layer_input = at::Tensor()) {
  const auto in = [dtype](const at::Tensor& tensor) { return tensor.to(dtype); };
  const size_t hx = packed ? 2 : 1;
  std::vector<at::Tensor> params = inputs[hx + 1].toTensorVector();
  const bool has_biases = inputs[hx + 2].toBool();
  int64_t layers = inputs[hx + 3].toInt();
  const double dropout = inputs[hx + 4].toDouble();
  const bool train = inputs[hx + 5].toBool();
  const bool bidirectional = inputs[hx + 6].toBool();
  const int64_t directions = bidirectional ? 2 : 1;
  const auto states = [&](const at::Tensor& state) {
    return layer ? in(state.narrow(0, *layer * directions, directions)) : in(state);
  };
  if (layer) {
    const int64_t per_layer = static_cast<int64_t>(params.size()) / layers;
    params = std::vector<at::Tensor>(params.begin() + *layer * per_layer,
                                     params.begin() + (*layer + 1) * per_layer);
    layers = 1;
  }
  for (at::Tensor& param : params) param = in(param);
  const at::Tensor x = layer ? layer_input : in(inputs[0].toTensor());
  if (cell == FrozenRnn::Cell::kLstm) {
    std::vector<at::Tensor> hc = inputs[hx].toTensorVector();
    for (at::Tensor& state : hc) state = states(state);
    const auto [output, h_n, c_n] = packed
                                        ? at::lstm(x, inputs[1].toTensor(), hc, params, has_biases,
                                                   layers, dropout, train, bidirectional)
                                        : at::lstm(x, hc, params, has_biases, layers, dropout,
                                                   train, bidirectional, inputs[8].toBool());
    return {output, h_n, c_n};
  }
  const at::Tensor h0 = states(inputs[hx].toTensor());
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

// The largest of |x| |W|^T + |b| over the rows of x (2-D, float64).
double LargestMagnitude(const at::Tensor& x, const at::Tensor& w, const at::Tensor& b) {
  if (x.numel() == 0 || w.numel() == 0) return 0;
  return at::linear(x.abs(), w.abs(),
                    b.defined() ? c10::optional<at::Tensor>(b.abs()) : c10::nullopt)
      .max()
      .item<double>();
}

// The largest rounding bound of any matrix product of the network, 2 (K + 2)
// eps32 (|x| |W|^T + |b|), over every layer's input projections and hidden
// products (on the exact inputs and states, layer by layer).
double LargestProductRounding(FrozenRnn::Cell cell, bool packed,
                              const std::vector<c10::IValue>& inputs) {
  const size_t hx = packed ? 2 : 1;
  const std::vector<at::Tensor> params = inputs[hx + 1].toTensorVector();
  const bool has_biases = inputs[hx + 2].toBool();
  const int64_t layers = inputs[hx + 3].toInt();
  const int64_t directions = inputs[hx + 6].toBool() ? 2 : 1;
  const int64_t per_direction = static_cast<int64_t>(params.size()) / (layers * directions);
  const at::Tensor h0 =
      (cell == FrozenRnn::Cell::kLstm ? inputs[hx].toTensorVector()[0] : inputs[hx].toTensor())
          .to(at::kDouble);
  double largest = 0;
  at::Tensor x = inputs[0].toTensor().to(at::kDouble);
  for (int64_t layer = 0; layer < layers; ++layer) {
    const at::Tensor output = AtenNetwork(cell, packed, inputs, at::kDouble, layer, x)[0];
    const int64_t state = output.size(-1) / directions;
    for (int64_t direction = 0; direction < directions; ++direction) {
      const int64_t first = (layer * directions + direction) * per_direction;
      const at::Tensor w_ih = params[first].to(at::kDouble),
                       w_hh = params[first + 1].to(at::kDouble);
      const at::Tensor b_ih = has_biases ? params[first + 2].to(at::kDouble) : at::Tensor();
      const at::Tensor b_hh = has_biases ? params[first + 3].to(at::kDouble) : at::Tensor();
      const at::Tensor h =
          at::cat({output.reshape({-1, output.size(-1)}).narrow(1, direction * state, state),
                   h0[layer * directions + direction]});
      largest = std::max(
          largest,
          2 * kEps32 *
              ((w_ih.size(1) + 2) * LargestMagnitude(x.reshape({-1, x.size(-1)}), w_ih, b_ih) +
               (w_hh.size(1) + 2) * LargestMagnitude(h, w_hh, b_hh)));
    }
    x = output;
  }
  return largest;
}

// ATen's cell on `inputs` (aten::lstm_cell's or aten::gru_cell's), its
// float tensors in `dtype`: its outputs.
std::vector<at::Tensor> AtenCell(FrozenRnn::Cell cell, const std::vector<c10::IValue>& inputs,
                                 at::ScalarType dtype) {
  const auto in = [dtype](const c10::IValue& value) {
    return value.isNone() ? c10::optional<at::Tensor>() : value.toTensor().to(dtype);
  };
  const at::Tensor x = *in(inputs[0]), w_ih = *in(inputs[2]), w_hh = *in(inputs[3]);
  if (cell == FrozenRnn::Cell::kLstm) {
    std::vector<at::Tensor> hc = inputs[1].toTensorVector();
    for (at::Tensor& state : hc) state = state.to(dtype);
    const auto [hy, cy] = at::lstm_cell(x, hc, w_ih, w_hh, in(inputs[4]), in(inputs[5]));
    return {hy, cy};
  }
  return {at::gru_cell(x, *in(inputs[1]), w_ih, w_hh, in(inputs[4]), in(inputs[5]))};
}

// The bound's form, 4 E + 8 eps32 X + 4 P, for ATen's outputs `floats`,
// the exact ones `exacts` and P.
at::Tensor BoundOf(const std::vector<at::Tensor>& floats, const std::vector<at::Tensor>& exacts,
                   double product_rounding, const at::Tensor& exact) {
  double aten_error = 0, magnitude = 0;
  for (size_t i = 0; i < floats.size(); ++i) {
    if (exacts[i].numel() == 0) continue;
    aten_error =
        std::max(aten_error, (floats[i].to(at::kDouble) - exacts[i]).abs().max().item<double>());
    magnitude = std::max(magnitude, exacts[i].abs().max().item<double>());
  }
  return at::full_like(exact, 4 * aten_error + 8 * kEps32 * magnitude + 4 * product_rounding,
                       exact.options().dtype(at::kDouble));
}

}  // namespace

at::Tensor FastCellErrorBound(FrozenRnn::Cell cell, const std::vector<c10::IValue>& inputs,
                              const at::Tensor& exact) {
  const auto as_double = [](const c10::IValue& value) {
    return value.isNone() ? at::Tensor() : value.toTensor().to(at::kDouble);
  };
  const at::Tensor x = as_double(inputs[0]), w_ih = as_double(inputs[2]),
                   w_hh = as_double(inputs[3]);
  const at::Tensor h = cell == FrozenRnn::Cell::kLstm
                           ? inputs[1].toTensorVector()[0].to(at::kDouble)
                           : as_double(inputs[1]);
  const double product_rounding =
      2 * kEps32 *
      ((w_ih.size(1) + 2) * LargestMagnitude(x, w_ih, as_double(inputs[4])) +
       (w_hh.size(1) + 2) * LargestMagnitude(h, w_hh, as_double(inputs[5])));
  return BoundOf(AtenCell(cell, inputs, at::kFloat), AtenCell(cell, inputs, at::kDouble),
                 product_rounding, exact);
}

at::Tensor FastGatesErrorBound(FrozenRnn::Cell cell, bool packed,
                               const std::vector<c10::IValue>& inputs, const at::Tensor& exact) {
  return BoundOf(AtenNetwork(cell, packed, inputs, at::kFloat),
                 AtenNetwork(cell, packed, inputs, at::kDouble),
                 LargestProductRounding(cell, packed, inputs), exact);
}

}  // namespace ops
}  // namespace static_runtime
