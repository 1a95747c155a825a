// The kernel of static_runtime::multi_head_attention (ops/attention/
// multi_head_attention.cc) against ATen's op computed in float64, within the
// bound it declares (ops/attention/attention_error_bounds.h), which ATen's own float32 result
// must meet too: random widths, heads, batch and token counts, dense
// sources with and without key padding masks, nested sources. What it does
// not take runs ATen's op: the very same results, or ATen's error.
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/NestedTensorImpl.h"
#include "gtest/gtest.h"
#include "ir/operators/operators.h"
#include "memory/counting_allocator.h"
#include "ops/attention/attention_error_bounds.h"
#include "ops/core/out_variant_test_support.h"
#include "ops/core/registry.h"
#include "ops/kernels.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {
namespace {

using testing::Draw;
using testing::Slots;

struct AttentionGraph {
  std::shared_ptr<torch::jit::Graph> graph;
  std::vector<c10::IValue> constants;  // inputs 3-8
  Kernel kernel;
};

AttentionGraph MakeAttentionGraph(int64_t width, int64_t heads) {
  ops::EnsureOperatorsRegistered();
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::Value* x = graph->addInput("x")->setType(c10::TensorType::get());
  torch::jit::Value* key = graph->addInput("key")->setType(c10::TensorType::get());
  const std::vector<c10::IValue> constants = {width,
                                              heads,
                                              at::randn({3 * width, width}) / std::sqrt(width),
                                              at::randn({3 * width}) * 0.1,
                                              at::randn({width, width}) / std::sqrt(width),
                                              at::randn({width}) * 0.1};
  std::vector<torch::jit::Value*> inputs = {x, key, key};
  for (const c10::IValue& constant : constants) inputs.push_back(graph->insertConstant(constant));
  inputs.push_back(graph->addInput("mask")->setType(c10::OptionalType::ofTensor()));
  inputs.push_back(graph->addInput("need_weights")->setType(c10::BoolType::get()));
  inputs.push_back(graph->insertConstant(true));
  inputs.push_back(
      graph->addInput("mask_type")->setType(c10::OptionalType::create(c10::IntType::get())));
  torch::jit::Node* node = graph->insertNode(graph->create(ops::kMultiHeadAttention, inputs, 2));
  for (torch::jit::Value* output : node->outputs()) {
    output->setType(c10::TensorType::get());
    graph->registerOutput(output);
  }
  auto selected = GlobalKernels().Find(node, /*allow_out_variants=*/true);
  EXPECT_TRUE(selected.has_value() && selected->kind == NodeKind::kOutVariant &&
              selected->error_bound);
  return {graph, constants, selected ? selected->kernel : Kernel()};
}

std::vector<c10::IValue> Inputs(const AttentionGraph& attention, const at::Tensor& x,
                                const c10::IValue& mask = c10::IValue(),
                                const c10::IValue& mask_type = c10::IValue(),
                                bool need_weights = false, const at::Tensor& key = at::Tensor()) {
  const at::Tensor& k = key.defined() ? key : x;
  std::vector<c10::IValue> inputs = {x, k, k};
  inputs.insert(inputs.end(), attention.constants.begin(), attention.constants.end());
  inputs.insert(inputs.end(), {mask, need_weights, true, mask_type});
  return inputs;
}

// `padded` [B, T, D] as a nested tensor of the first lengths[b] tokens of
// each sequence.
at::Tensor Nested(const at::Tensor& padded, const std::vector<int64_t>& lengths) {
  at::Tensor keep = at::zeros({padded.size(0), padded.size(1)}, at::kBool);
  for (size_t b = 0; b < lengths.size(); ++b) keep[b].narrow(0, 0, lengths[b]).fill_(true);
  return at::_nested_tensor_from_mask(padded, keep, /*mask_check=*/true);
}

// ATen's op on `inputs`, the floating tensors converted to `dtype` (a
// nested source too); its two results.
std::vector<at::Tensor> AtenAttention(const std::vector<c10::IValue>& inputs,
                                      at::ScalarType dtype) {
  auto t = [&](size_t i) {
    const at::Tensor& tensor = inputs[i].toTensor();
    if (!tensor.is_nested()) return tensor.to(dtype);
    const at::Tensor sizes = at::native::get_nested_size_tensor(tensor).select(1, 0).contiguous();
    return Nested(tensor.to_padded_tensor(0).to(dtype),
                  {sizes.data_ptr<int64_t>(), sizes.data_ptr<int64_t>() + sizes.numel()});
  };
  const at::Tensor x = t(0);
  const bool self = inputs[1].toTensor().is_same(inputs[0].toTensor());
  const at::Tensor key = self ? x : t(1);
  auto [output, weights] = at::_native_multi_head_attention(
      x, key, key, inputs[3].toInt(), inputs[4].toInt(), t(5), t(6), t(7), t(8),
      inputs[9].toOptional<at::Tensor>(), inputs[10].toBool(), inputs[11].toBool(),
      inputs[12].toOptional<int64_t>());
  return {output, weights};
}

at::Tensor Padded(const at::Tensor& t) { return t.is_nested() ? t.to_padded_tensor(0) : t; }

RC_GTEST_PROP(MultiHeadAttentionProperty, WithinTheDeclaredBoundOfTheExactResult, ()) {
  at::manual_seed(*rc::gen::inRange(0, 1 << 20));
  Draw d;
  const int64_t heads = d.Int(1, 4), width = heads * d.Int(1, 10);
  AttentionGraph attention = MakeAttentionGraph(width, heads);
  Slots slots(2);
  for (int call = 0; call < 3; ++call) {  // shapes and forms change
    const int64_t batch = d.Int(1, 3), tokens = d.Int(1, 10);
    at::Tensor x = at::randn({batch, tokens, width});
    std::vector<c10::IValue> inputs;
    switch (d.Int(0, 2)) {
      case 0:
        if (d.Int(0, 3) == 0) x = x.transpose(0, 1).contiguous().transpose(0, 1);
        inputs = Inputs(attention, x);
        break;
      case 1: {  // a key padding mask; sometimes a sequence with every key masked
        at::Tensor mask = at::rand({batch, tokens}) > 0.6;
        mask.select(1, 0).fill_(false);
        if (d.Int(0, 3) == 0) mask[0].fill_(true);
        inputs = Inputs(attention, x, d.Bool() ? mask : mask.to(at::kFloat), 1);
        break;
      }
      default: {
        std::vector<int64_t> lengths;
        for (int64_t b = 0; b < batch; ++b) lengths.push_back(d.Int(1, tokens));
        inputs = Inputs(attention, Nested(x, lengths));
      }
    }
    RC_ASSERT(slots.Run(attention.kernel, inputs) == "");
    const at::Tensor actual = slots.Output(0).toTensor();
    RC_ASSERT(!slots.Output(1).toTensor().defined());
    RC_ASSERT(actual.is_nested() == inputs[0].toTensor().is_nested());
    const at::Tensor aten = AtenAttention(inputs, at::kFloat)[0];
    RC_ASSERT(at::equal(at::isnan(Padded(actual)), at::isnan(Padded(aten))));
    const at::Tensor exact = Padded(AtenAttention(inputs, at::kDouble)[0]);
    const std::string ours =
        testing::OutsideBound(ops::MultiHeadAttentionErrorBound, inputs, exact, Padded(actual));
    if (!ours.empty()) RC_FAIL(c10::str("kernel: ", ours, " width ", width, " heads ", heads));
    const std::string atens =
        testing::OutsideBound(ops::MultiHeadAttentionErrorBound, inputs, exact, Padded(aten));
    if (!atens.empty()) RC_FAIL("ATen's attention: " + atens);
  }
}

// Once warm, a dense call allocates nothing and writes into its output.
TEST(MultiHeadAttentionTest, WritesItsOutputAndReusesItsWorkspace) {
  AttentionGraph attention = MakeAttentionGraph(16, 2);
  Slots slots(2);
  const std::vector<c10::IValue> inputs = Inputs(attention, at::randn({2, 5, 16}));
  ASSERT_EQ(slots.Run(attention.kernel, inputs), "");
  const void* output = slots.Output(0).toTensor().data_ptr();
  const memory::CountingAllocator& counter = memory::CountingAllocator::Installed();
  const size_t before = counter.count();
  ASSERT_EQ(slots.Run(attention.kernel, inputs), "");
  EXPECT_EQ(counter.count() - before, 0u);
  EXPECT_EQ(slots.Output(0).toTensor().data_ptr(), output);
}

// Asked for the weights, or given another key and value, it runs ATen's op:
// its very results; a source of the wrong width: ATen's error.
TEST(MultiHeadAttentionTest, LeavesWhatItDoesNotTakeToAten) {
  AttentionGraph attention = MakeAttentionGraph(8, 2);
  const at::Tensor x = at::randn({2, 5, 8});
  for (const std::vector<c10::IValue>& inputs :
       {Inputs(attention, x, c10::IValue(), c10::IValue(), /*need_weights=*/true),
        Inputs(attention, x, c10::IValue(), c10::IValue(), false, at::randn({2, 5, 8}))}) {
    Slots slots(2);
    ASSERT_EQ(slots.Run(attention.kernel, inputs), "");
    const std::vector<at::Tensor> aten = AtenAttention(inputs, at::kFloat);
    for (size_t i = 0; i < 2; ++i) {
      EXPECT_EQ(testing::Difference(aten[i], slots.Output(i)), "") << "output " << i;
    }
  }
  const std::vector<c10::IValue> narrow = Inputs(attention, at::randn({2, 5, 7}));
  Slots slots(2);
  EXPECT_EQ(testing::RejectsAsAten([&] { AtenAttention(narrow, at::kFloat); }, slots,
                                   attention.kernel, narrow),
            "");
  EXPECT_EQ(slots.Run(attention.kernel, Inputs(attention, x)), "");  // still usable
}

}  // namespace
}  // namespace static_runtime
