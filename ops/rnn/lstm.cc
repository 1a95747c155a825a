#include "ops/rnn/lstm.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <tuple>
#include <utility>

#include "ATen/Parallel.h"
#include "ops/core/registry.h"
#include "ops/linalg/onednn_matmul.h"
#include "ops/rnn/rnn_error_bound.h"
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

// The same on packed sequences (the .data overloads: data, batch_sizes,
// hx, params, has_biases, num_layers, dropout, train, bidirectional).
void AtenPackedLstm(NodeIO& io) {
  const std::vector<at::Tensor> hx = io.Input(2).toTensorVector();
  const std::vector<at::Tensor> params = io.Input(3).toTensorVector();
  auto [output, h_n, c_n] = at::lstm(
      io.Input(0).toTensor(), io.Input(1).toTensor(), hx, params, io.Input(4).toBool(),
      io.Input(5).toInt(), io.Input(6).toDouble(), io.Input(7).toBool(), io.Input(8).toBool());
  io.Output(0) = std::move(output);
  io.Output(1) = std::move(h_n);
  io.Output(2) = std::move(c_n);
}

void AtenPackedSingleState(NodeIO& io, FrozenRnn::Cell cell) {
  const std::vector<at::Tensor> params = io.Input(3).toTensorVector();
  using Rnn = std::tuple<at::Tensor, at::Tensor> (*)(const at::Tensor&, const at::Tensor&,
                                                     const at::Tensor&, at::TensorList, bool,
                                                     int64_t, double, bool, bool);
  const Rnn rnn = cell == FrozenRnn::Cell::kGru       ? static_cast<Rnn>(&at::gru)
                  : cell == FrozenRnn::Cell::kRnnTanh ? static_cast<Rnn>(&at::rnn_tanh)
                                                      : static_cast<Rnn>(&at::rnn_relu);
  auto [output, h_n] = rnn(io.Input(0).toTensor(), io.Input(1).toTensor(), io.Input(2).toTensor(),
                           params, io.Input(4).toBool(), io.Input(5).toInt(),
                           io.Input(6).toDouble(), io.Input(7).toBool(), io.Input(8).toBool());
  io.Output(0) = std::move(output);
  io.Output(1) = std::move(h_n);
}

KernelOffer MakeLstmKernel(const torch::jit::Node* node, bool packed, bool fast_gates) {
  void (*const aten)(NodeIO&) = packed ? AtenPackedLstm : AtenLstm;
  std::optional<FrozenRnn> frozen =
      FrozenRnn::FromNode(node, FrozenRnn::Cell::kLstm, packed, fast_gates);
  if (!frozen) return aten;
  auto lstm = std::make_shared<const FrozenRnn>(*std::move(frozen));
  return [lstm, aten, packed](NodeIO& io) {
    const c10::List<at::Tensor> hx = io.Input(packed ? 2 : 1).toTensorList();
    if (hx.size() == 2) {
      auto result = packed ? lstm->RunPacked(io.Input(0).toTensor(), io.Input(1).toTensor(),
                                             hx.get(0), hx.get(1))
                           : lstm->Run(io.Input(0).toTensor(), hx.get(0), hx.get(1));
      if (result) {
        io.Output(0) = std::move(std::get<0>(*result));
        io.Output(1) = std::move(std::get<1>(*result));
        io.Output(2) = std::move(std::get<2>(*result));
        return;
      }
    }
    aten(io);
  };
}

// A GRU or an RNN: one hidden state in, (output, h_n) out.
KernelOffer MakeSingleStateKernel(const torch::jit::Node* node, FrozenRnn::Cell cell, bool packed,
                                  bool fast_gates) {
  const auto aten = [cell, packed](NodeIO& io) {
    if (packed) {
      AtenPackedSingleState(io, cell);
    } else {
      cell == FrozenRnn::Cell::kGru ? AtenGru(io) : AtenRnn(io, cell);
    }
  };
  std::optional<FrozenRnn> frozen = FrozenRnn::FromNode(node, cell, packed, fast_gates);
  if (!frozen) return aten;
  auto rnn = std::make_shared<const FrozenRnn>(*std::move(frozen));
  return [rnn, aten, packed](NodeIO& io) {
    auto result = packed ? rnn->RunPacked(io.Input(0).toTensor(), io.Input(1).toTensor(),
                                          io.Input(2).toTensor(), at::Tensor())
                         : rnn->Run(io.Input(0).toTensor(), io.Input(1).toTensor(), at::Tensor());
    if (result) {
      io.Output(0) = std::move(std::get<0>(*result));
      io.Output(1) = std::move(std::get<1>(*result));
      return;
    }
    aten(io);
  };
}

}  // namespace

void RegisterLstmKernels(KernelRegistry& registry) {
  using Cell = FrozenRnn::Cell;
  struct Op {
    const char* aten;
    const char* fast;  // its fast-gates form; nullptr for none
    Cell cell;
  };
  for (const bool packed : {false, true}) {
    const char* overload = packed ? "data" : "input";
    for (const Op& op :
         {Op{"aten::lstm", "static_runtime::lstm_fast_gates", Cell::kLstm},
          Op{"aten::gru", "static_runtime::gru_fast_gates", Cell::kGru},
          Op{"aten::rnn_tanh", "static_runtime::rnn_tanh_fast_gates", Cell::kRnnTanh},
          Op{"aten::rnn_relu", nullptr, Cell::kRnnRelu}}) {
      const Cell cell = op.cell;
      const auto factory = [cell, packed](bool fast_gates) -> KernelFactory {
        return [cell, packed, fast_gates](const torch::jit::Node* node) {
          return cell == Cell::kLstm ? MakeLstmKernel(node, packed, fast_gates)
                                     : MakeSingleStateKernel(node, cell, packed, fast_gates);
        };
      };
      registry.Add({KernelOp::Overload(op.aten, overload), NodeKind::kNative, factory(false)});
      if (op.fast == nullptr) continue;
      registry.Add(
          {KernelOp::Overload(op.fast, overload), NodeKind::kNative, factory(true),
           [cell, packed](const std::vector<c10::IValue>& inputs, const at::Tensor& exact) {
             return FastGatesErrorBound(cell, packed, inputs, exact);
           }});
    }
  }
}

std::optional<FrozenRnn> FrozenRnn::FromNode(const torch::jit::Node* node, Cell cell, bool packed,
                                             bool fast_gates) {
  const RnnSteps& fast = FastRnnStepsForThisCpu().steps;
  const RnnSteps& steps = fast_gates && fast.lstm != nullptr ? fast : RnnStepsForThisCpu();
  const bool fused_steps = cell == Cell::kLstm || cell == Cell::kGru;
  if ((fused_steps && (steps.lstm == nullptr || steps.gru == nullptr)) ||
      node->inputs().size() != 9) {
    return std::nullopt;
  }
  const int64_t gates = cell == Cell::kLstm ? 4 : cell == Cell::kGru ? 3 : 1;
  // params, has_biases, num_layers, dropout, train, bidirectional
  // [, batch_first]
  std::vector<c10::IValue> args;
  for (size_t i = packed ? 3 : 2; i < 9; ++i) {
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
  const bool batch_first = !packed && args[6].toBool();
  if (train && dropout != 0 && num_layers > 1) return std::nullopt;
  const int64_t directions = bidirectional ? 2 : 1;
  const size_t plain = has_biases ? 4 : 2;
  const size_t networks = static_cast<size_t>(std::max<int64_t>(num_layers, 0) * directions);
  // An LSTM with projections (nn.LSTM's proj_size) has a fifth weight per
  // direction, w_hr, after the biases.
  const bool projected = cell == Cell::kLstm && params.size() == networks * (plain + 1);
  const size_t per_direction = plain + (projected ? 1 : 0);
  if (num_layers < 1 || params.size() != networks * per_direction) return std::nullopt;
  std::vector<Weights> weights;
  int64_t hidden = -1, state = -1;
  for (size_t first = 0; first < params.size(); first += per_direction) {
    const at::Tensor& w_ih = params[first];
    const at::Tensor& w_hh = params[first + 1];
    const at::Tensor w_hr = projected ? params[first + per_direction - 1] : at::Tensor();
    if (!IsFloatCpu(w_ih) || !IsFloatCpu(w_hh) || w_ih.dim() != 2 || w_hh.dim() != 2 ||
        (projected && (!IsFloatCpu(w_hr) || w_hr.dim() != 2))) {
      return std::nullopt;
    }
    if (hidden < 0) {
      hidden = w_hh.size(0) / gates;
      state = projected ? w_hr.size(0) : hidden;
    }
    const int64_t layer = static_cast<int64_t>(weights.size()) / directions;
    // ATen tells projections by h0's and c0's sizes differing: a projection
    // to the hidden size would be read as none.
    if (hidden == 0 || state == 0 ||
        (projected && (state == hidden || w_hr.size(0) != state || w_hr.size(1) != hidden)) ||
        w_hh.size(1) != state || w_hh.size(0) != gates * hidden || w_ih.size(0) != gates * hidden ||
        (layer > 0 && w_ih.size(1) != directions * state)) {
      return std::nullopt;
    }
    at::Tensor b_ih, b_hh;
    if (has_biases) {
      b_ih = params[first + 2];
      b_hh = params[first + 3];
      for (const at::Tensor* bias : {&b_ih, &b_hh}) {
        if (!IsFloatCpu(*bias) || bias->dim() != 1 || bias->size(0) != gates * hidden) {
          return std::nullopt;
        }
      }
    }
    weights.push_back(
        Weights{w_ih, b_ih, std::make_shared<const ReplicatedLinear>(w_hh, b_hh),
                projected ? std::make_shared<const ReplicatedLinear>(w_hr, at::Tensor()) : nullptr,
                hidden, state});
    if (fast_gates && w_ih.numel() > 0) {
      Weights& added = weights.back();
      added.w_ih = added.w_ih.contiguous();
      if (added.b_ih.defined()) added.b_ih = added.b_ih.contiguous();
      added.ih_packed = std::make_shared<onednn::PackedLinear>(added.w_ih, added.b_ih);
    }
  }
  return FrozenRnn(cell, std::move(weights), num_layers, bidirectional, batch_first, steps);
}

std::optional<std::tuple<at::Tensor, at::Tensor, at::Tensor>> FrozenRnn::Run(
    const at::Tensor& input, const at::Tensor& h0, const at::Tensor& c0) const {
  if (!IsFloatCpu(input) || input.dim() != 3) return std::nullopt;
  // ATen works time-major and transposes back at the end.
  const at::Tensor x = batch_first_ ? input.transpose(0, 1) : input;
  Schedule schedule;
  schedule.steps = x.size(0);
  schedule.batch = x.size(1);
  if (schedule.steps == 0 || !Takes(x.size(2), schedule.batch, h0, c0)) return std::nullopt;
  auto [output, h_n, c_n] = RunLayers(x, schedule, h0, c0);
  if (batch_first_) output = output.transpose(0, 1);
  return std::make_tuple(std::move(output), std::move(h_n), std::move(c_n));
}

std::optional<std::tuple<at::Tensor, at::Tensor, at::Tensor>> FrozenRnn::RunPacked(
    const at::Tensor& data, const at::Tensor& batch_sizes, const at::Tensor& h0,
    const at::Tensor& c0) const {
  if (!IsFloatCpu(data) || data.dim() != 2 || batch_sizes.dim() != 1 ||
      batch_sizes.scalar_type() != at::kLong || !batch_sizes.is_cpu() ||
      !batch_sizes.is_contiguous() || batch_sizes.numel() == 0) {
    return std::nullopt;
  }
  Schedule schedule;
  schedule.steps = batch_sizes.numel();
  schedule.batch_sizes = batch_sizes.data_ptr<int64_t>();
  schedule.batch = schedule.batch_sizes[0];
  schedule.offsets.resize(schedule.steps);
  int64_t rows = 0;
  for (int64_t t = 0; t < schedule.steps; ++t) {
    const int64_t size = schedule.batch_sizes[t];
    if (size < 1 || (t > 0 && size > schedule.batch_sizes[t - 1])) return std::nullopt;
    schedule.offsets[t] = rows;
    rows += size;
  }
  if (rows != data.size(0) || !Takes(data.size(1), schedule.batch, h0, c0)) return std::nullopt;
  return RunLayers(data, schedule, h0, c0);
}

bool FrozenRnn::Takes(int64_t input_size, int64_t batch, const at::Tensor& h0,
                      const at::Tensor& c0) const {
  const bool lstm = cell_ == Cell::kLstm;
  const int64_t hidden = weights_[0].hidden;
  const int64_t networks = num_layers_ * (bidirectional_ ? 2 : 1);
  const std::array<int64_t, 3> h_sizes = {networks, batch, weights_[0].state};
  const std::array<int64_t, 3> c_sizes = {networks, batch, hidden};
  // ATen splits a sigmoid of this many elements across threads, which moves
  // the boundary between its vector and scalar loops.
  return IsFloatCpu(h0) && (!lstm || IsFloatCpu(c0)) && batch > 0 &&
         input_size == weights_[0].w_ih.size(1) && h0.sizes() == at::IntArrayRef(h_sizes) &&
         (!lstm || c0.sizes() == at::IntArrayRef(c_sizes)) &&
         !(at::get_num_threads() > 1 && batch * hidden >= at::internal::GRAIN_SIZE);
}

std::tuple<at::Tensor, at::Tensor, at::Tensor> FrozenRnn::RunLayers(const at::Tensor& x,
                                                                    const Schedule& schedule,
                                                                    const at::Tensor& h0,
                                                                    const at::Tensor& c0) const {
  const bool lstm = cell_ == Cell::kLstm;
  const int64_t state = weights_[0].state;
  const int64_t directions = bidirectional_ ? 2 : 1;
  std::vector<int64_t> output_sizes = x.sizes().vec();
  output_sizes.back() = directions * state;
  std::vector<at::Tensor> h_n, c_n;
  at::Tensor layer_input = x;
  for (int64_t layer = 0; layer < num_layers_; ++layer) {
    at::Tensor output = at::empty(output_sizes, x.options());
    for (int64_t direction = 0; direction < directions; ++direction) {
      const int64_t index = layer * directions + direction;
      auto [h, c] = RunDirection(weights_[index], layer_input, schedule, h0.select(0, index),
                                 lstm ? c0.select(0, index) : at::Tensor(), direction == 1, output,
                                 direction * state);
      h_n.push_back(std::move(h));
      c_n.push_back(std::move(c));
    }
    layer_input = std::move(output);
  }
  return std::make_tuple(std::move(layer_input), at::stack(h_n, 0),
                         lstm ? at::stack(c_n, 0) : at::Tensor());
}

std::pair<at::Tensor, at::Tensor> FrozenRnn::RunDirection(
    const Weights& weights, const at::Tensor& input, const Schedule& schedule, const at::Tensor& h0,
    const at::Tensor& c0, bool reverse, at::Tensor& output, int64_t column) const {
  const bool lstm = cell_ == Cell::kLstm;
  const bool packed = schedule.batch_sizes != nullptr;
  const int64_t steps = schedule.steps, batch = schedule.batch;
  const int64_t hidden = weights.hidden, state = weights.state;
  // The projection of every step's input at once: ATen's, by the same call,
  // or on the weight packed for oneDNN.
  at::Tensor input_w;
  if (weights.ih_packed != nullptr) {
    const at::Tensor src = input.contiguous();
    std::vector<int64_t> sizes = src.sizes().vec();
    sizes.back() = weights.ih_packed->out_features();
    input_w = at::empty(sizes, src.options());
    weights.ih_packed->Run(src.data_ptr<float>(), src.numel() / src.size(-1),
                           input_w.data_ptr<float>());
  } else {
    input_w =
        at::linear(input, weights.w_ih,
                   weights.b_ih.defined() ? c10::optional<at::Tensor>(weights.b_ih) : c10::nullopt);
  }
  if (input_w.stride(-1) != 1) input_w = input_w.contiguous();
  // A step's first input row, and the distance between its rows.
  const int64_t step_stride = input_w.stride(0);
  const int64_t row_stride = packed ? input_w.stride(0) : input_w.stride(1);
  const at::Tensor h_first = h0.stride(1) == 1 ? h0 : h0.contiguous();
  const at::Tensor c_first = !lstm || c0.stride(1) == 1 ? c0 : c0.contiguous();
  const bool simple = cell_ == Cell::kRnnTanh || cell_ == Cell::kRnnRelu;
  at::Tensor gates = at::empty({batch, (lstm ? 4 : simple ? 1 : 3) * hidden}, input.options());
  // A GRU step reads h while writing h': two buffers take turns.
  at::Tensor h = at::empty({batch, state}, input.options());
  // With projections an LSTM step's h, before ATen's matmul_hr.
  const at::Tensor h_full =
      weights.hr != nullptr ? at::empty({batch, hidden}, input.options()) : at::Tensor();
  at::Tensor h_other = lstm || simple ? at::Tensor() : at::empty({batch, hidden}, input.options());
  at::Tensor c = lstm ? at::empty({batch, hidden}, input.options()) : at::Tensor();
  float* out = output.data_ptr<float>();
  const int64_t out_row = output.size(-1);
  int64_t last_rows = 0;
  for (int64_t s = 0; s < steps; ++s) {
    const int64_t t = reverse ? steps - 1 - s : s;
    const int64_t rows = schedule.Rows(t);
    const int64_t first = packed ? schedule.offsets[t] : t * batch;
    if (s > 0 && rows < last_rows && !h_other.defined()) {
      // Packed, forwards: sequences last_rows - 1 .. rows ended; their
      // states stay in their rows (ATen slices them off).
    } else if (s > 0 && rows < last_rows) {
      h_other.narrow(0, rows, last_rows - rows).copy_(h.narrow(0, rows, last_rows - rows));
    } else if (s > 0 && rows > last_rows) {
      // Packed, backwards: sequences last_rows .. rows - 1 start from h0
      // (ATen concatenates their initial states).
      h.narrow(0, last_rows, rows - last_rows).copy_(h0.narrow(0, last_rows, rows - last_rows));
      if (lstm) {
        c.narrow(0, last_rows, rows - last_rows).copy_(c0.narrow(0, last_rows, rows - last_rows));
      }
    }
    last_rows = rows;
    at::Tensor step_gates = rows == batch ? gates : gates.narrow(0, 0, rows);
    // ATen's linear_hh.
    const at::Tensor& h_state = s == 0 ? h0 : h;
    const at::Tensor h_prev = rows == batch ? h_state : h_state.narrow(0, 0, rows);
    weights.hh->Run(h_prev, step_gates);
    const float* input_t = input_w.data_ptr<float>() + (packed ? first : t) * step_stride;
    if (simple) {
      // ATen's SimpleCell on the projected input: act(linear_hh(h).add_(x_w)).
      const RnnStepFn step = cell_ == Cell::kRnnRelu ? steps_.rnn_relu : steps_.rnn_tanh;
      if (step != nullptr) {
        step({gates.data_ptr<float>(), input_t, row_stride, /*state_prev=*/nullptr, 0,
              /*c_next=*/nullptr, h.data_ptr<float>(), rows, hidden});
      } else {
        step_gates.add_(packed ? input_w.narrow(0, first, rows) : input_w.select(0, t));
        at::Tensor h_rows = rows == batch ? h : h.narrow(0, 0, rows);
        if (cell_ == Cell::kRnnTanh) {
          at::tanh_out(h_rows, step_gates);
        } else {
          at::clamp_min_out(h_rows, step_gates, 0);  // ATen's relu
        }
      }
    } else if (lstm) {
      const at::Tensor& c_prev = s == 0 ? c_first : c;
      float* const h_step = (weights.hr != nullptr ? h_full : h).data_ptr<float>();
      steps_.lstm({gates.data_ptr<float>(), input_t, row_stride, c_prev.data_ptr<float>(),
                   c_prev.stride(0), c.data_ptr<float>(), h_step, rows, hidden});
      if (weights.hr != nullptr) {
        at::Tensor h_rows = rows == batch ? h : h.narrow(0, 0, rows);
        weights.hr->Run(rows == batch ? h_full : h_full.narrow(0, 0, rows), h_rows);
      }
    } else {
      const at::Tensor& h_read = s == 0 ? h_first : h;
      steps_.gru({gates.data_ptr<float>(), input_t, row_stride, h_read.data_ptr<float>(),
                  h_read.stride(0), /*c_next=*/nullptr, h_other.data_ptr<float>(), rows, hidden});
      std::swap(h, h_other);
    }
    const float* h_data = h.data_ptr<float>();
    for (int64_t b = 0; b < rows; ++b) {
      std::memcpy(out + (first + b) * out_row + column, h_data + b * state, state * sizeof(float));
    }
  }
  return {std::move(h), std::move(c)};
}

}  // namespace ops
}  // namespace static_runtime
