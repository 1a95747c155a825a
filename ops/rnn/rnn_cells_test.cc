// ops/rnn/rnn_cells: the aten::lstm_cell and aten::gru_cell kernels give ATen's
// results bit for bit for random sizes (hidden sizes on both sides of the
// vector widths and of OpenBLAS's small-matrix limit), layouts, biases and
// weights given as inputs or as constants (a frozen model's, whose products
// ops/blas_replica computes), leave their inputs alone, and give ATen's
// errors for inputs they do not take. Their fast-gates forms
// (static_runtime::lstm_cell_fast_gates, gru_cell_fast_gates) are within their
// declared bound of the exact (float64) cell, as ATen's results are, and run
// their own functions.
#include <cmath>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "c10/core/InferenceMode.h"
#include "gtest/gtest.h"
#include "ir/operators/operators.h"
#include "ops/core/out_variant_test_support.h"
#include "ops/core/registry.h"
#include "ops/kernels.h"
#include "ops/rnn/lstm_gates.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {
namespace {

using testing::Difference;
using testing::Draw;

struct CellCase {
  at::Tensor input, h, c, w_ih, w_hh;
  c10::IValue b_ih, b_hh;  // a tensor or None
};

CellCase DrawCell(Draw& d, int64_t gates) {
  CellCase c;
  const int64_t batch = d.Int(1, 5), features = d.Int(1, 40);
  const int64_t hidden =
      d.Bool() ? d.OneOf<int64_t>({1, 7, 8, 9, 15, 16, 17, 32, 33, 64, 100, 128}) : d.Int(1, 70);
  c.input = d.Tensor({batch, features}, at::kFloat);
  c.h = d.Tensor({batch, hidden}, at::kFloat);
  c.c = d.Tensor({batch, hidden}, at::kFloat);
  c.w_ih = d.Tensor({gates * hidden, features}, at::kFloat);
  c.w_hh = d.Tensor({gates * hidden, hidden}, at::kFloat);
  if (d.Bool() || d.Bool()) {
    c.b_ih = d.Tensor({gates * hidden}, at::kFloat);
    c.b_hh = d.Tensor({gates * hidden}, at::kFloat);
  }
  return c;
}

// A cell of fixed sizes with biases, outside RapidCheck.
CellCase FixedCell(int64_t gates, int64_t batch, int64_t features, int64_t hidden) {
  return {at::randn({batch, features}),        at::randn({batch, hidden}),
          at::randn({batch, hidden}),          at::randn({gates * hidden, features}),
          at::randn({gates * hidden, hidden}), at::randn({gates * hidden}),
          at::randn({gates * hidden})};
}

c10::optional<at::Tensor> Optional(const c10::IValue& value) {
  return value.isNone() ? c10::nullopt : c10::optional<at::Tensor>(value.toTensor());
}

std::vector<c10::IValue> LstmInputs(const CellCase& c) {
  return {c.input, c10::List<at::Tensor>({c.h, c.c}), c.w_ih, c.w_hh, c.b_ih, c.b_hh};
}
std::vector<c10::IValue> GruInputs(const CellCase& c) {
  return {c.input, c.h, c.w_ih, c.w_hh, c.b_ih, c.b_hh};
}

// The registered native kernel of `op` on `inputs`: "" and the outputs in
// `slots`, or the error. With `constant_weights`, the node's weights and
// biases (inputs 2 to 5) are constants of the graph, as in a frozen model.
std::string RunKernel(const std::string& op, const std::vector<c10::IValue>& inputs,
                      testing::Slots& slots, bool constant_weights = false) {
  testing::SingleNode single = testing::MakeNode(op, "", inputs, slots.num_outputs());
  if (constant_weights) {
    torch::jit::WithInsertPoint guard(single.node);
    for (size_t i = 2; i < 6; ++i) {
      single.node->replaceInput(i, single.graph->insertConstant(inputs[i]));
    }
  }
  const std::optional<KernelRegistry::Selected> selected =
      GlobalKernels().Find(single.node, /*allow_out_variants=*/true);
  if (!selected || selected->kind != NodeKind::kNative) return "no native kernel for " + op;
  return slots.Run(selected->kernel, inputs);
}

RC_GTEST_PROP(RnnCells, LstmCellEqualsAtenBitForBit, ()) {
  Draw d;
  const CellCase c = DrawCell(d, 4);
  c10::optional<c10::InferenceMode> mode;
  if (d.Bool()) mode.emplace();
  const auto [hy, cy] =
      at::lstm_cell(c.input, {c.h, c.c}, c.w_ih, c.w_hh, Optional(c.b_ih), Optional(c.b_hh));
  const at::Tensor input_before = c.input.clone(), h_before = c.h.clone(), c_before = c.c.clone();
  testing::Slots slots(2);
  RC_ASSERT(RunKernel("aten::lstm_cell", LstmInputs(c), slots, d.Bool()) == "");
  RC_LOG() << "input " << c.input.sizes() << " hidden " << c.w_hh.size(1) << " biases "
           << !c.b_ih.isNone() << "\n";
  RC_ASSERT(Difference(hy, slots.Output(0)) == "");
  RC_ASSERT(Difference(cy, slots.Output(1)) == "");
  RC_ASSERT(at::equal(input_before, c.input) && at::equal(h_before, c.h) &&
            at::equal(c_before, c.c));
}

RC_GTEST_PROP(RnnCells, GruCellEqualsAtenBitForBit, ()) {
  Draw d;
  const CellCase c = DrawCell(d, 3);
  c10::optional<c10::InferenceMode> mode;
  if (d.Bool()) mode.emplace();
  const at::Tensor hy =
      at::gru_cell(c.input, c.h, c.w_ih, c.w_hh, Optional(c.b_ih), Optional(c.b_hh));
  const at::Tensor h_before = c.h.clone();
  testing::Slots slots(1);
  RC_ASSERT(RunKernel("aten::gru_cell", GruInputs(c), slots, d.Bool()) == "");
  RC_ASSERT(Difference(hy, slots.Output(0)) == "");
  RC_ASSERT(at::equal(h_before, c.h));
}

std::vector<c10::IValue> ToDouble(const std::vector<c10::IValue>& inputs) {
  std::vector<c10::IValue> doubles;
  for (const c10::IValue& value : inputs) {
    if (value.isTensor()) {
      doubles.emplace_back(value.toTensor().to(at::kDouble));
    } else if (value.isTensorList()) {
      std::vector<at::Tensor> tensors = value.toTensorVector();
      for (at::Tensor& tensor : tensors) tensor = tensor.to(at::kDouble);
      doubles.emplace_back(c10::List<at::Tensor>(tensors));
    } else {
      doubles.push_back(value);
    }
  }
  return doubles;
}

// ATen's cell `op` on `inputs`: its outputs.
std::vector<at::Tensor> AtenCell(const std::string& op, const std::vector<c10::IValue>& inputs) {
  if (op == "aten::lstm_cell") {
    const auto [hy, cy] =
        at::lstm_cell(inputs[0].toTensor(), inputs[1].toTensorVector(), inputs[2].toTensor(),
                      inputs[3].toTensor(), Optional(inputs[4]), Optional(inputs[5]));
    return {hy, cy};
  }
  return {at::gru_cell(inputs[0].toTensor(), inputs[1].toTensor(), inputs[2].toTensor(),
                       inputs[3].toTensor(), Optional(inputs[4]), Optional(inputs[5]))};
}

// The kernel of the fast-gates op `fast` on a node of `inputs` whose
// weights and biases are constants, as UseFastRnnGates makes it.
std::optional<KernelRegistry::Selected> FastCellKernel(const std::string& fast,
                                                       const std::vector<c10::IValue>& inputs,
                                                       size_t outputs) {
  ops::EnsureOperatorsRegistered();
  testing::SingleNode single = testing::MakeNode(fast, "", inputs, outputs);
  torch::jit::WithInsertPoint guard(single.node);
  for (size_t i = 2; i < 6; ++i) {
    single.node->replaceInput(i, single.graph->insertConstant(inputs[i]));
  }
  return GlobalKernels().Find(single.node, /*allow_out_variants=*/true);
}

// The fast-gates form `fast` of cell `op` with constant weights (of
// nn.LSTMCell's initialization scale, 1 / sqrt(hidden)): its kernel declares
// a bound, and its results and ATen's are within it of the exact cell's;
// the inputs stay as they were.
void CheckFastCell(const std::string& op, const std::string& fast, int64_t gates) {
  Draw d;
  CellCase c = DrawCell(d, gates);
  const double scale = 0.5 / std::sqrt(static_cast<double>(c.w_hh.size(1)));
  c.w_ih = c.w_ih * scale;
  c.w_hh = c.w_hh * scale;
  if (!c.b_ih.isNone()) {
    c.b_ih = c.b_ih.toTensor() * scale;
    c.b_hh = c.b_hh.toTensor() * scale;
  }
  const std::vector<c10::IValue> inputs = gates == 4 ? LstmInputs(c) : GruInputs(c);
  const std::vector<at::Tensor> aten = AtenCell(op, inputs);
  const std::vector<at::Tensor> exact = AtenCell(op, ToDouble(inputs));
  const at::Tensor input_before = c.input.clone(), h_before = c.h.clone();
  const std::optional<KernelRegistry::Selected> selected =
      FastCellKernel(fast, inputs, aten.size());
  RC_ASSERT(selected.has_value());
  RC_ASSERT(static_cast<bool>(selected->error_bound));
  testing::Slots slots(aten.size());
  RC_ASSERT(slots.Run(selected->kernel, inputs) == "");
  RC_LOG() << fast << " input " << c.input.sizes() << " hidden " << c.w_hh.size(1) << "\n";
  for (size_t i = 0; i < aten.size(); ++i) {
    const at::Tensor ours = slots.Output(i).toTensor().to(at::kDouble);
    const at::Tensor bound = selected->error_bound(inputs, exact[i]);
    RC_LOG() << "output " << i << ": bound " << bound.max().item<double>() << ", ours "
             << (ours - exact[i]).abs().max().item<double>() << ", ATen's "
             << (aten[i].to(at::kDouble) - exact[i]).abs().max().item<double>() << "\n";
    RC_ASSERT(((ours - exact[i]).abs() <= bound).all().item<bool>());
    RC_ASSERT(((aten[i].to(at::kDouble) - exact[i]).abs() <= bound).all().item<bool>());
  }
  RC_ASSERT(at::equal(input_before, c.input) && at::equal(h_before, c.h));
}

RC_GTEST_PROP(RnnCells, FastLstmCellWithinItsBound, ()) {
  CheckFastCell("aten::lstm_cell", "static_runtime::lstm_cell_fast_gates", 4);
}

RC_GTEST_PROP(RnnCells, FastGruCellWithinItsBound, ()) {
  CheckFastCell("aten::gru_cell", "static_runtime::gru_cell_fast_gates", 3);
}

// Where the CPU has the fast steps, a fast cell runs them, not ATen's
// sigmoid and tanh: its results differ from ATen's in the last bits.
TEST(RnnCells, FastCellsRunTheirOwnFunctions) {
  if (ops::FastRnnStepsForThisCpu().steps.gru == nullptr) GTEST_SKIP() << "no AVX2";
  CellCase c = FixedCell(3, 4, 40, 64);
  c.w_ih = c.w_ih * 0.1;
  c.w_hh = c.w_hh * 0.1;
  const std::vector<c10::IValue> inputs = GruInputs(c);
  const at::Tensor aten = AtenCell("aten::gru_cell", inputs)[0];
  const std::optional<KernelRegistry::Selected> selected =
      FastCellKernel("static_runtime::gru_cell_fast_gates", inputs, 1);
  ASSERT_TRUE(selected.has_value());
  testing::Slots slots(1);
  ASSERT_EQ(slots.Run(selected->kernel, inputs), "");
  const at::Tensor ours = slots.Output(0).toTensor();
  EXPECT_FALSE(at::equal(ours, aten));
  EXPECT_TRUE(at::allclose(ours, aten, 0, 1e-5));
}

// Inputs the fused step does not take go to ATen: its results (doubles) and
// its errors (mismatched sizes).
TEST(RnnCells, WhatTheStepDoesNotTakeGetsAtensResultOrError) {
  CellCase c = FixedCell(4, 3, 5, 9);
  for (at::Tensor* tensor : {&c.input, &c.h, &c.c, &c.w_ih, &c.w_hh}) {
    *tensor = tensor->to(at::kDouble);
  }
  c.b_ih = c.b_ih.toTensor().to(at::kDouble);
  c.b_hh = c.b_hh.toTensor().to(at::kDouble);
  const auto [hy, cy] =
      at::lstm_cell(c.input, {c.h, c.c}, c.w_ih, c.w_hh, Optional(c.b_ih), Optional(c.b_hh));
  testing::Slots slots(2);
  ASSERT_EQ(RunKernel("aten::lstm_cell", LstmInputs(c), slots), "");
  EXPECT_EQ(Difference(hy, slots.Output(0)), "");
  EXPECT_EQ(Difference(cy, slots.Output(1)), "");

  CellCase bad = FixedCell(3, 3, 5, 9);
  bad.input = at::randn({3, 6});  // the weights take 5 features
  std::string aten_error;
  try {
    at::gru_cell(bad.input, bad.h, bad.w_ih, bad.w_hh, Optional(bad.b_ih), Optional(bad.b_hh));
  } catch (const std::exception& e) {
    aten_error = e.what();
  }
  ASSERT_FALSE(aten_error.empty());
  testing::Slots gru_slots(1);
  const std::string error = RunKernel("aten::gru_cell", GruInputs(bad), gru_slots);
  EXPECT_EQ(error.substr(0, 40), aten_error.substr(0, 40));
}

}  // namespace
}  // namespace static_runtime
