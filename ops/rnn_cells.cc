// aten::lstm_cell and aten::gru_cell (nn.LSTMCell, nn.GRUCell): ATen's two
// projections by the same GEMM calls ATen makes, then the elementwise part of
// the step in one pass (ops/lstm_gates.h) instead of ATen's nine (seven) ops
// and their allocations; bit for bit ATen's results. ATen runs instead (with
// its result or error) for anything else: inputs that are not 2-D float32
// CPU tensors of matching shapes, a CPU without matching step kernels, or
// gate rows large enough for ATen to split its elementwise loops across
// threads.
#include <vector>

#include "ATen/ATen.h"
#include "ATen/Parallel.h"
#include "ops/lstm_gates.h"
#include "ops/registry.h"

namespace static_runtime {
namespace ops {
namespace {

bool IsFloatMatrix(const at::Tensor& tensor) {
  return tensor.defined() && tensor.scalar_type() == at::kFloat && tensor.is_cpu() &&
         tensor.layout() == at::kStrided && !tensor.is_neg() && !tensor.is_conj() &&
         tensor.dim() == 2;
}

c10::optional<at::Tensor> OptionalTensor(const c10::IValue& value) {
  return value.isNone() ? c10::nullopt : c10::optional<at::Tensor>(value.toTensor());
}

// ATen's linear(x, w, b) of a matrix, into `out`: addmm with a bias, mm
// without (the calls at::linear makes, so the same bits).
void LinearInto(at::Tensor& out, const at::Tensor& x, const at::Tensor& w,
                const c10::optional<at::Tensor>& b) {
  if (b) {
    at::addmm_out(out, *b, x, w.t());
  } else {
    at::mm_out(out, x, w.t());
  }
}

// The cell's operands when the fused step takes them: input [B, I], state
// tensors [B, H], w_ih [G*H, I], w_hh [G*H, H], biases [G*H] or none.
bool StepTakes(const at::Tensor& input, const std::vector<at::Tensor>& states,
               const at::Tensor& w_ih, const at::Tensor& w_hh,
               const c10::optional<at::Tensor>& b_ih, const c10::optional<at::Tensor>& b_hh,
               int64_t gates) {
  if (!IsFloatMatrix(input) || !IsFloatMatrix(w_ih) || !IsFloatMatrix(w_hh)) return false;
  const int64_t batch = input.size(0), hidden = w_hh.size(1);
  if (batch == 0 || hidden == 0 || input.size(1) != w_ih.size(1) ||
      w_ih.size(0) != gates * hidden || w_hh.size(0) != gates * hidden) {
    return false;
  }
  for (const at::Tensor& state : states) {
    if (!IsFloatMatrix(state) || state.size(0) != batch || state.size(1) != hidden) return false;
  }
  for (const c10::optional<at::Tensor>& bias : {b_ih, b_hh}) {
    if (bias &&
        (!bias->defined() || bias->scalar_type() != at::kFloat || !bias->is_cpu() ||
         bias->layout() != at::kStrided || bias->dim() != 1 || bias->size(0) != gates * hidden)) {
      return false;
    }
  }
  // ATen splits an elementwise loop of this many elements across threads,
  // which moves the boundary between its vector and scalar formulas.
  return !(at::get_num_threads() > 1 && batch * hidden >= at::internal::GRAIN_SIZE);
}

// A state with its last dimension contiguous, as the step reads it.
at::Tensor RowsContiguous(const at::Tensor& state) {
  return state.stride(1) == 1 ? state : state.contiguous();
}

void LstmCell(NodeIO& io) {
  const at::Tensor& input = io.Input(0).toTensor();
  const std::vector<at::Tensor> hx = io.Input(1).toTensorVector();
  const at::Tensor& w_ih = io.Input(2).toTensor();
  const at::Tensor& w_hh = io.Input(3).toTensor();
  const c10::optional<at::Tensor> b_ih = OptionalTensor(io.Input(4));
  const c10::optional<at::Tensor> b_hh = OptionalTensor(io.Input(5));
  const RnnStepFn step = RnnStepsForThisCpu().lstm;
  if (step == nullptr || hx.size() != 2 || !StepTakes(input, hx, w_ih, w_hh, b_ih, b_hh, 4)) {
    auto [hy, cy] = at::lstm_cell(input, hx, w_ih, w_hh, b_ih, b_hh);
    io.Output(0) = std::move(hy);
    io.Output(1) = std::move(cy);
    return;
  }
  const int64_t batch = input.size(0), hidden = w_hh.size(1);
  // ATen: gates = linear_hh(h).add_(linear_ih(x)), then the step.
  at::Tensor projections = at::empty({2, batch, 4 * hidden}, input.options());
  at::Tensor gates = projections[0];
  at::Tensor input_w = projections[1];
  LinearInto(gates, hx[0], w_hh, b_hh);
  LinearInto(input_w, input, w_ih, b_ih);
  const at::Tensor c = RowsContiguous(hx[1]);
  at::Tensor hy = at::empty({batch, hidden}, input.options());
  at::Tensor cy = at::empty({batch, hidden}, input.options());
  step({gates.data_ptr<float>(), input_w.data_ptr<float>(), input_w.stride(0), c.data_ptr<float>(),
        c.stride(0), cy.data_ptr<float>(), hy.data_ptr<float>(), batch, hidden});
  io.Output(0) = std::move(hy);
  io.Output(1) = std::move(cy);
}

void GruCell(NodeIO& io) {
  const at::Tensor& input = io.Input(0).toTensor();
  const at::Tensor& hx = io.Input(1).toTensor();
  const at::Tensor& w_ih = io.Input(2).toTensor();
  const at::Tensor& w_hh = io.Input(3).toTensor();
  const c10::optional<at::Tensor> b_ih = OptionalTensor(io.Input(4));
  const c10::optional<at::Tensor> b_hh = OptionalTensor(io.Input(5));
  const RnnStepFn step = RnnStepsForThisCpu().gru;
  if (step == nullptr || !StepTakes(input, {hx}, w_ih, w_hh, b_ih, b_hh, 3)) {
    io.Output(0) = at::gru_cell(input, hx, w_ih, w_hh, b_ih, b_hh);
    return;
  }
  const int64_t batch = input.size(0), hidden = w_hh.size(1);
  at::Tensor projections = at::empty({2, batch, 3 * hidden}, input.options());
  at::Tensor hidden_gates = projections[0];
  at::Tensor input_w = projections[1];
  LinearInto(hidden_gates, hx, w_hh, b_hh);
  LinearInto(input_w, input, w_ih, b_ih);
  const at::Tensor h = RowsContiguous(hx);
  at::Tensor hy = at::empty({batch, hidden}, input.options());
  step({hidden_gates.data_ptr<float>(), input_w.data_ptr<float>(), input_w.stride(0),
        h.data_ptr<float>(), h.stride(0), /*c_next=*/nullptr, hy.data_ptr<float>(), batch, hidden});
  io.Output(0) = std::move(hy);
}

const bool kRegistered = [] {
  KernelRegistry::Global().RegisterOverload("aten::lstm_cell", "", NodeKind::kNative,
                                            [](const torch::jit::Node*) { return LstmCell; });
  KernelRegistry::Global().RegisterOverload("aten::gru_cell", "", NodeKind::kNative,
                                            [](const torch::jit::Node*) { return GruCell; });
  return true;
}();

}  // namespace
}  // namespace ops
}  // namespace static_runtime
