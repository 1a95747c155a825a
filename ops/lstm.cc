#include "ops/lstm.h"

#include <array>
#include <cstring>
#include <memory>
#include <tuple>
#include <utility>

#include "ATen/Parallel.h"
#include "ops/registry.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace ops {
bool IsFloatCpu(const at::Tensor& tensor) {
  return tensor.defined() && tensor.scalar_type() == at::kFloat && tensor.is_cpu() &&
         tensor.layout() == at::kStrided && !tensor.is_neg() && !tensor.is_conj();
}

namespace {

// ATen's own network on the node's inputs (any case the frozen path
// declines).
void AtenLstm(NodeIO& io) {
  const std::vector<at::Tensor> hx = io.Input(1).toTensorVector();
  const std::vector<at::Tensor> params = io.Input(2).toTensorVector();
  auto [output, h_n, c_n] = at::lstm(
      io.Input(0).toTensor(), hx, params, io.Input(3).toBool(), io.Input(4).toInt(),
      io.Input(5).toDouble(), io.Input(6).toBool(), io.Input(7).toBool(), io.Input(8).toBool());
  io.Output(0) = std::move(output);
  io.Output(1) = std::move(h_n);
  io.Output(2) = std::move(c_n);
}

void AtenGru(NodeIO& io) {
  const std::vector<at::Tensor> params = io.Input(2).toTensorVector();
  auto [output, h_n] = at::gru(io.Input(0).toTensor(), io.Input(1).toTensor(), params,
                               io.Input(3).toBool(), io.Input(4).toInt(), io.Input(5).toDouble(),
                               io.Input(6).toBool(), io.Input(7).toBool(), io.Input(8).toBool());
  io.Output(0) = std::move(output);
  io.Output(1) = std::move(h_n);
}

// aten::rnn_tanh and aten::rnn_relu take the GRU's arguments.
void AtenRnn(NodeIO& io, FrozenRnn::Cell cell) {
  const std::vector<at::Tensor> params = io.Input(2).toTensorVector();
  using Rnn =
      std::tuple<at::Tensor, at::Tensor> (*)(const at::Tensor&, const at::Tensor&, at::TensorList,
                                             bool, int64_t, double, bool, bool, bool);
  const Rnn rnn = cell == FrozenRnn::Cell::kRnnTanh ? static_cast<Rnn>(&at::rnn_tanh)
                                                    : static_cast<Rnn>(&at::rnn_relu);
  auto [output, h_n] = rnn(io.Input(0).toTensor(), io.Input(1).toTensor(), params,
                           io.Input(3).toBool(), io.Input(4).toInt(), io.Input(5).toDouble(),
                           io.Input(6).toBool(), io.Input(7).toBool(), io.Input(8).toBool());
  io.Output(0) = std::move(output);
  io.Output(1) = std::move(h_n);
}

KernelOffer MakeLstmKernel(const torch::jit::Node* node) {
  std::optional<FrozenRnn> frozen = FrozenRnn::FromNode(node, FrozenRnn::Cell::kLstm);
  if (!frozen) return AtenLstm;
  auto lstm = std::make_shared<const FrozenRnn>(*std::move(frozen));
  return [lstm](NodeIO& io) {
    const c10::List<at::Tensor> hx = io.Input(1).toTensorList();
    if (hx.size() == 2) {
      if (auto result = lstm->Run(io.Input(0).toTensor(), hx.get(0), hx.get(1))) {
        io.Output(0) = std::move(std::get<0>(*result));
        io.Output(1) = std::move(std::get<1>(*result));
        io.Output(2) = std::move(std::get<2>(*result));
        return;
      }
    }
    AtenLstm(io);
  };
}

// A GRU or an RNN: one hidden state in, (output, h_n) out.
KernelOffer MakeSingleStateKernel(const torch::jit::Node* node, FrozenRnn::Cell cell) {
  const auto aten = [cell](NodeIO& io) {
    cell == FrozenRnn::Cell::kGru ? AtenGru(io) : AtenRnn(io, cell);
  };
  std::optional<FrozenRnn> frozen = FrozenRnn::FromNode(node, cell);
  if (!frozen) return aten;
  auto rnn = std::make_shared<const FrozenRnn>(*std::move(frozen));
  return [rnn, aten](NodeIO& io) {
    if (auto result = rnn->Run(io.Input(0).toTensor(), io.Input(1).toTensor(), at::Tensor())) {
      io.Output(0) = std::move(std::get<0>(*result));
      io.Output(1) = std::move(std::get<1>(*result));
      return;
    }
    aten(io);
  };
}

const bool kRegistered = [] {
  KernelRegistry& registry = KernelRegistry::Global();
  registry.RegisterOverload("aten::lstm", "input", NodeKind::kNative, MakeLstmKernel);
  for (const auto& [name, cell] : {std::pair{"aten::gru", FrozenRnn::Cell::kGru},
                                   std::pair{"aten::rnn_tanh", FrozenRnn::Cell::kRnnTanh},
                                   std::pair{"aten::rnn_relu", FrozenRnn::Cell::kRnnRelu}}) {
    const FrozenRnn::Cell kind = cell;
    registry.RegisterOverload(
        name, "input", NodeKind::kNative,
        [kind](const torch::jit::Node* node) { return MakeSingleStateKernel(node, kind); });
  }
  return true;
}();

}  // namespace

std::optional<FrozenRnn> FrozenRnn::FromNode(const torch::jit::Node* node, Cell cell) {
  const RnnSteps& steps = RnnStepsForThisCpu();
  const bool fused_steps = cell == Cell::kLstm || cell == Cell::kGru;
  if ((fused_steps && (steps.lstm == nullptr || steps.gru == nullptr)) ||
      node->inputs().size() != 9) {
    return std::nullopt;
  }
  const int64_t gates = cell == Cell::kLstm ? 4 : cell == Cell::kGru ? 3 : 1;
  std::vector<c10::IValue> args;
  for (size_t i = 2; i < 9; ++i) {
    c10::optional<c10::IValue> value = torch::jit::toIValue(node->input(i));
    if (!value) return std::nullopt;
    args.push_back(*std::move(value));
  }
  if (!args[0].isTensorList()) return std::nullopt;
  const std::vector<at::Tensor> params = args[0].toTensorVector();
  const bool has_biases = args[1].toBool();
  const int64_t num_layers = args[2].toInt();
  const double dropout = args[3].toDouble();
  const bool train = args[4].toBool();
  const bool bidirectional = args[5].toBool();
  const bool batch_first = args[6].toBool();
  if (train && dropout != 0 && num_layers > 1) return std::nullopt;
  const int64_t directions = bidirectional ? 2 : 1;
  const size_t per_direction = has_biases ? 4 : 2;
  if (num_layers < 1 || params.size() != num_layers * directions * per_direction) {
    return std::nullopt;  // projections add a fifth weight
  }
  std::vector<Weights> weights;
  int64_t hidden = -1;
  for (size_t first = 0; first < params.size(); first += per_direction) {
    const at::Tensor& w_ih = params[first];
    const at::Tensor& w_hh = params[first + 1];
    if (!IsFloatCpu(w_ih) || !IsFloatCpu(w_hh) || w_ih.dim() != 2 || w_hh.dim() != 2) {
      return std::nullopt;
    }
    if (hidden < 0) hidden = w_hh.size(1);
    const int64_t layer = static_cast<int64_t>(weights.size()) / directions;
    if (hidden == 0 || w_hh.size(1) != hidden || w_hh.size(0) != gates * hidden ||
        w_ih.size(0) != gates * hidden || (layer > 0 && w_ih.size(1) != directions * hidden)) {
      return std::nullopt;
    }
    Weights entry{w_ih, w_hh.t(), at::Tensor(), at::Tensor()};
    if (has_biases) {
      entry.b_ih = params[first + 2];
      entry.b_hh = params[first + 3];
      for (const at::Tensor* bias : {&entry.b_ih, &entry.b_hh}) {
        if (!IsFloatCpu(*bias) || bias->dim() != 1 || bias->size(0) != gates * hidden) {
          return std::nullopt;
        }
      }
    }
    weights.push_back(std::move(entry));
  }
  return FrozenRnn(cell, std::move(weights), num_layers, bidirectional, batch_first, steps);
}

std::optional<std::tuple<at::Tensor, at::Tensor, at::Tensor>> FrozenRnn::Run(
    const at::Tensor& input, const at::Tensor& h0, const at::Tensor& c0) const {
  const bool lstm = cell_ == Cell::kLstm;
  if (!IsFloatCpu(input) || !IsFloatCpu(h0) || (lstm && !IsFloatCpu(c0)) || input.dim() != 3) {
    return std::nullopt;
  }
  // ATen works time-major and transposes back at the end.
  const at::Tensor x = batch_first_ ? input.transpose(0, 1) : input;
  const int64_t steps = x.size(0), batch = x.size(1);
  const int64_t hidden = weights_[0].w_hh_t.size(0);
  const int64_t directions = bidirectional_ ? 2 : 1;
  const std::array<int64_t, 3> hidden_sizes = {num_layers_ * directions, batch, hidden};
  if (steps == 0 || batch == 0 || x.size(2) != weights_[0].w_ih.size(1) ||
      h0.sizes() != at::IntArrayRef(hidden_sizes) ||
      (lstm && c0.sizes() != at::IntArrayRef(hidden_sizes))) {
    return std::nullopt;
  }
  // ATen splits a sigmoid of this many elements across threads, which moves
  // the boundary between its vector and scalar loops.
  if (at::get_num_threads() > 1 && batch * hidden >= at::internal::GRAIN_SIZE) {
    return std::nullopt;
  }
  std::vector<at::Tensor> h_n, c_n;
  at::Tensor layer_input = x;
  for (int64_t layer = 0; layer < num_layers_; ++layer) {
    at::Tensor output = at::empty({steps, batch, directions * hidden}, x.options());
    for (int64_t direction = 0; direction < directions; ++direction) {
      const int64_t index = layer * directions + direction;
      auto [h, c] = RunDirection(weights_[index], layer_input, h0.select(0, index),
                                 lstm ? c0.select(0, index) : at::Tensor(), direction == 1, output,
                                 direction * hidden);
      h_n.push_back(std::move(h));
      c_n.push_back(std::move(c));
    }
    layer_input = std::move(output);
  }
  at::Tensor output = batch_first_ ? layer_input.transpose(0, 1) : layer_input;
  return std::make_tuple(std::move(output), at::stack(h_n, 0),
                         lstm ? at::stack(c_n, 0) : at::Tensor());
}

std::pair<at::Tensor, at::Tensor> FrozenRnn::RunDirection(
    const Weights& weights, const at::Tensor& input, const at::Tensor& h0, const at::Tensor& c0,
    bool reverse, at::Tensor& output, int64_t column) const {
  const bool lstm = cell_ == Cell::kLstm;
  const int64_t steps = input.size(0), batch = input.size(1);
  const int64_t hidden = weights.w_hh_t.size(0);
  // ATen's projection of every step's input at once, by the same call.
  at::Tensor input_w =
      at::linear(input, weights.w_ih,
                 weights.b_ih.defined() ? c10::optional<at::Tensor>(weights.b_ih) : c10::nullopt);
  if (input_w.stride(2) != 1) input_w = input_w.contiguous();
  const at::Tensor h_first = h0.stride(1) == 1 ? h0 : h0.contiguous();
  const at::Tensor c_first = !lstm || c0.stride(1) == 1 ? c0 : c0.contiguous();
  const bool simple = cell_ == Cell::kRnnTanh || cell_ == Cell::kRnnRelu;
  at::Tensor gates = at::empty({batch, (lstm ? 4 : simple ? 1 : 3) * hidden}, input.options());
  // A GRU step reads h while writing h': two buffers take turns.
  at::Tensor h = at::empty({batch, hidden}, input.options());
  at::Tensor h_other = lstm || simple ? at::Tensor() : at::empty({batch, hidden}, input.options());
  at::Tensor c = lstm ? at::empty({batch, hidden}, input.options()) : at::Tensor();
  float* out = output.data_ptr<float>();
  const int64_t out_row = output.size(2);
  for (int64_t s = 0; s < steps; ++s) {
    const int64_t t = reverse ? steps - 1 - s : s;
    // ATen's linear_hh: addmm for a bias, mm without; the same calls on the
    // same layouts give the same bits.
    const at::Tensor& h_prev = s == 0 ? h0 : h;
    if (weights.b_hh.defined()) {
      at::addmm_out(gates, weights.b_hh, h_prev, weights.w_hh_t);
    } else {
      at::mm_out(gates, h_prev, weights.w_hh_t);
    }
    const float* input_t = input_w.data_ptr<float>() + t * input_w.stride(0);
    if (simple) {
      // ATen's SimpleCell on the projected input: act(linear_hh(h).add_(x_w)).
      gates.add_(input_w.select(0, t));
      if (cell_ == Cell::kRnnTanh) {
        at::tanh_out(h, gates);
      } else {
        at::clamp_min_out(h, gates, 0);  // ATen's relu
      }
    } else if (lstm) {
      const at::Tensor& c_prev = s == 0 ? c_first : c;
      steps_.lstm({gates.data_ptr<float>(), input_t, input_w.stride(1), c_prev.data_ptr<float>(),
                   c_prev.stride(0), c.data_ptr<float>(), h.data_ptr<float>(), batch, hidden});
    } else {
      const at::Tensor& h_read = s == 0 ? h_first : h;
      steps_.gru({gates.data_ptr<float>(), input_t, input_w.stride(1), h_read.data_ptr<float>(),
                  h_read.stride(0), /*c_next=*/nullptr, h_other.data_ptr<float>(), batch, hidden});
      std::swap(h, h_other);
    }
    const float* h_data = h.data_ptr<float>();
    for (int64_t b = 0; b < batch; ++b) {
      std::memcpy(out + (t * batch + b) * out_row + column, h_data + b * hidden,
                  hidden * sizeof(float));
    }
  }
  return {std::move(h), std::move(c)};
}

}  // namespace ops
}  // namespace static_runtime
