// ops/rnn/rnn_cells: the aten::lstm_cell and aten::gru_cell kernels give ATen's
// results bit for bit for random sizes (hidden sizes on both sides of the
// vector widths and of OpenBLAS's small-matrix limit), layouts, biases and
// weights given as inputs or as constants (a frozen model's, whose products
// ops/blas_replica computes), leave their inputs alone, and give ATen's
// errors for inputs they do not take.
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "c10/core/InferenceMode.h"
#include "gtest/gtest.h"
#include "ops/core/out_variant_test_support.h"
#include "ops/core/registry.h"
#include "ops/kernels.h"
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
