// aten::lstm_cell and aten::gru_cell (nn.LSTMCell, nn.GRUCell): ATen's two
// projections by the same GEMM calls ATen makes (with constant weights, in
// BLAS's order on weights packed once where ops/blas_replica proves it),
// then the elementwise part of the step in one pass (ops/rnn/lstm_gates.h)
// instead of ATen's nine (seven) ops and their allocations; bit for bit
// ATen's results. ATen runs instead (with
// its result or error) for anything else: inputs that are not 2-D float32
// CPU tensors of matching shapes, a CPU without matching step kernels, or
// gate rows large enough for ATen to split its elementwise loops across
// threads.
// static_runtime::lstm_cell_fast_gates and gru_cell_fast_gates (the same
// cells with constant weights, passes/prepack_weights.h) run the same
// products and the step with our own sigmoid and tanh (FastRnnSteps), within
// the bound of ops/rnn/rnn_error_bound.h; on a CPU without the fast steps
// they run as the exact kernels.
#include <memory>
#include <optional>
#include <tuple>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/Parallel.h"
#include "ops/blas_replica/replicated_linear.h"
#include "ops/core/registry.h"
#include "ops/rnn/lstm.h"
#include "ops/rnn/lstm_gates.h"
#include "ops/rnn/rnn_error_bound.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace ops {
namespace {

c10::optional<at::Tensor> OptionalTensor(const c10::IValue& value) {
  return value.isNone() ? c10::nullopt : c10::optional<at::Tensor>(value.toTensor());
}

// The cell's operands when the fused step takes them: input [B, I], states
// [B, H], w_ih [G*H, I], w_hh [G*H, H], biases [G*H] or none.
bool StepTakes(const at::Tensor& input, at::ArrayRef<at::Tensor> states, const at::Tensor& w_ih,
               const at::Tensor& w_hh, const c10::optional<at::Tensor>& b_ih,
               const c10::optional<at::Tensor>& b_hh, int64_t gates) {
  auto is_float = [](const at::Tensor& tensor, int64_t rank) {
    return IsFloatCpu(tensor) && tensor.dim() == rank;
  };
  if (!is_float(input, 2) || !is_float(w_ih, 2) || !is_float(w_hh, 2)) return false;
  const int64_t batch = input.size(0), hidden = w_hh.size(1);
  if (batch == 0 || hidden == 0 || input.size(1) != w_ih.size(1) ||
      w_ih.size(0) != gates * hidden || w_hh.size(0) != gates * hidden) {
    return false;
  }
  for (const at::Tensor& state : states) {
    if (!is_float(state, 2) || state.size(0) != batch || state.size(1) != hidden) return false;
  }
  for (const c10::optional<at::Tensor>& bias : {b_ih, b_hh}) {
    if (bias && (!is_float(*bias, 1) || bias->size(0) != gates * hidden)) return false;
  }
  // ATen splits an elementwise loop of this many elements across threads,
  // which moves the boundary between its vector and scalar formulas.
  return !(at::get_num_threads() > 1 && batch * hidden >= at::internal::GRAIN_SIZE);
}

// A node's constant weights (w_ih, w_hh and the biases), as products.
struct ConstantWeights {
  std::shared_ptr<const ReplicatedLinear> ih, hh;
};

std::optional<ConstantWeights> ConstantWeightsOf(const torch::jit::Node* node) {
  std::vector<at::Tensor> tensors;  // w_ih, w_hh, b_ih, b_hh (undefined: None)
  for (size_t i = 2; i < 6; ++i) {
    const c10::optional<c10::IValue> value = torch::jit::toIValue(node->input(i));
    if (!value || !(value->isTensor() || (i >= 4 && value->isNone()))) return std::nullopt;
    tensors.push_back(value->isTensor() ? value->toTensor() : at::Tensor());
  }
  for (const at::Tensor& tensor : tensors) {
    if (tensor.defined() && !IsFloatCpu(tensor)) return std::nullopt;
  }
  if (tensors[0].dim() != 2 || tensors[1].dim() != 2) return std::nullopt;
  for (size_t i = 0; i < 2; ++i) {
    const at::Tensor& bias = tensors[2 + i];
    if (bias.defined() && (bias.dim() != 1 || bias.size(0) != tensors[i].size(0))) {
      return std::nullopt;
    }
  }
  return ConstantWeights{std::make_shared<const ReplicatedLinear>(tensors[0], tensors[2]),
                         std::make_shared<const ReplicatedLinear>(tensors[1], tensors[3])};
}

// ATen's cell computes linear_hh(h) and linear_ih(x), each as at::linear of
// a matrix does (addmm with a bias, mm without: the same bits); here into
// one buffer: [0] the hidden gates, [1] the input's.
at::Tensor Projections(const at::Tensor& input, const at::Tensor& h, const at::Tensor& w_ih,
                       const at::Tensor& w_hh, const c10::optional<at::Tensor>& b_ih,
                       const c10::optional<at::Tensor>& b_hh,
                       const std::optional<ConstantWeights>& constant) {
  at::Tensor projections = at::empty({2, input.size(0), w_hh.size(0)}, input.options());
  for (int64_t i = 0; i < 2; ++i) {
    at::Tensor out = projections[i];
    const at::Tensor& x = i == 0 ? h : input;
    const at::Tensor& w = i == 0 ? w_hh : w_ih;
    const c10::optional<at::Tensor>& b = i == 0 ? b_hh : b_ih;
    if (constant) {
      (i == 0 ? constant->hh : constant->ih)->Run(x, out);
    } else {
      AtenProduct(x, w.t(), b ? *b : at::Tensor(), out);
    }
  }
  return projections;
}

// A state with its last dimension contiguous, as the step reads it.
at::Tensor RowsContiguous(const at::Tensor& state) {
  return state.stride(1) == 1 ? state : state.contiguous();
}

// `steps`: the exact step kernels (RnnStepsForThisCpu) or the fast ones.
void LstmCell(NodeIO& io, const std::optional<ConstantWeights>& constant, const RnnSteps& steps) {
  const at::Tensor& input = io.Input(0).toTensor();
  const c10::List<at::Tensor> hx = io.Input(1).toTensorList();
  const at::Tensor& w_ih = io.Input(2).toTensor();
  const at::Tensor& w_hh = io.Input(3).toTensor();
  const c10::optional<at::Tensor> b_ih = OptionalTensor(io.Input(4));
  const c10::optional<at::Tensor> b_hh = OptionalTensor(io.Input(5));
  const RnnStepFn step = steps.lstm;
  if (step == nullptr || hx.size() != 2 ||
      !StepTakes(input, {hx.get(0), hx.get(1)}, w_ih, w_hh, b_ih, b_hh, 4)) {
    auto [hy, cy] = at::lstm_cell(input, hx.vec(), w_ih, w_hh, b_ih, b_hh);
    io.Output(0) = std::move(hy);
    io.Output(1) = std::move(cy);
    return;
  }
  // ATen: gates = linear_hh(h).add_(linear_ih(x)), then the step.
  const at::Tensor projections = Projections(input, hx.get(0), w_ih, w_hh, b_ih, b_hh, constant);
  const at::Tensor c = RowsContiguous(hx.get(1));
  const int64_t batch = input.size(0), hidden = w_hh.size(1);
  at::Tensor hy = at::empty({batch, hidden}, input.options());
  at::Tensor cy = at::empty({batch, hidden}, input.options());
  float* gates = projections.data_ptr<float>();
  step({gates, gates + projections.stride(0), projections.stride(1), c.data_ptr<float>(),
        c.stride(0), cy.data_ptr<float>(), hy.data_ptr<float>(), batch, hidden});
  io.Output(0) = std::move(hy);
  io.Output(1) = std::move(cy);
}

void GruCell(NodeIO& io, const std::optional<ConstantWeights>& constant, const RnnSteps& steps) {
  const at::Tensor& input = io.Input(0).toTensor();
  const at::Tensor& hx = io.Input(1).toTensor();
  const at::Tensor& w_ih = io.Input(2).toTensor();
  const at::Tensor& w_hh = io.Input(3).toTensor();
  const c10::optional<at::Tensor> b_ih = OptionalTensor(io.Input(4));
  const c10::optional<at::Tensor> b_hh = OptionalTensor(io.Input(5));
  const RnnStepFn step = steps.gru;
  if (step == nullptr || !StepTakes(input, {hx}, w_ih, w_hh, b_ih, b_hh, 3)) {
    io.Output(0) = at::gru_cell(input, hx, w_ih, w_hh, b_ih, b_hh);
    return;
  }
  const at::Tensor projections = Projections(input, hx, w_ih, w_hh, b_ih, b_hh, constant);
  const at::Tensor h = RowsContiguous(hx);
  const int64_t batch = input.size(0), hidden = w_hh.size(1);
  at::Tensor hy = at::empty({batch, hidden}, input.options());
  float* gates = projections.data_ptr<float>();
  step({gates, gates + projections.stride(0), projections.stride(1), h.data_ptr<float>(),
        h.stride(0), /*c_next=*/nullptr, hy.data_ptr<float>(), batch, hidden});
  io.Output(0) = std::move(hy);
}

}  // namespace

void RegisterRnnCellsKernels(KernelRegistry& registry) {
  using Cell = FrozenRnn::Cell;
  for (const auto& [aten, fast, cell] :
       {std::tuple{"aten::lstm_cell", "static_runtime::lstm_cell_fast_gates", Cell::kLstm},
        std::tuple{"aten::gru_cell", "static_runtime::gru_cell_fast_gates", Cell::kGru}}) {
    const auto factory = [cell = cell](bool fast) -> KernelFactory {
      return [cell, fast](const torch::jit::Node* node) -> KernelOffer {
        // The fast steps where this CPU has them; else the exact ones.
        const RnnSteps& fast_steps = FastRnnStepsForThisCpu().steps;
        const RnnSteps& steps =
            fast && fast_steps.lstm != nullptr ? fast_steps : RnnStepsForThisCpu();
        if (cell == Cell::kLstm) {
          return [constant = ConstantWeightsOf(node), &steps](NodeIO& io) {
            LstmCell(io, constant, steps);
          };
        }
        return [constant = ConstantWeightsOf(node), &steps](NodeIO& io) {
          GruCell(io, constant, steps);
        };
      };
    };
    registry.Add({KernelOp::Overload(aten, ""), NodeKind::kNative, factory(false)});
    registry.Add({KernelOp::Overload(fast, ""), NodeKind::kNative, factory(true),
                  [cell = cell](const std::vector<c10::IValue>& inputs, const at::Tensor& exact) {
                    return FastCellErrorBound(cell, inputs, exact);
                  }});
  }
}

}  // namespace ops
}  // namespace static_runtime
