// The kernel of static_runtime::transformer_encoder_layer (ops/
// transformer_encoder_layer.cc) against ATen's op computed in float64,
// within the bound it declares (ops/attention/attention_error_bounds.h), which ATen's own float32
// result must meet too: random widths, heads, feed-forward widths, batch and
// token counts, relu or gelu, norm first or last; with key padding masks and
// on nested sources. A mask or a source the kernel does not take runs
// ATen's op (its result, its error); one kernel runs on several threads at
// once. transformer_encoder_layer_row: one token of each sequence within the
// same bound, every other token exactly 0.
#include <optional>
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

struct LayerCase {
  int64_t width = 8, heads = 2, feed_forward = 16;
  bool use_gelu = false, norm_first = false;
  double eps = 1e-5;
};

// A random layer: up to `max_heads` heads (an even count when `even_heads`)
// of up to `max_head_width`, a feed-forward width up to `max_feed_forward`,
// relu or gelu, norm first or last.
LayerCase DrawLayer(Draw& d, int64_t max_heads, int64_t max_head_width, int64_t max_feed_forward,
                    bool even_heads = false) {
  LayerCase c;
  c.heads = even_heads ? 2 * d.Int(1, max_heads / 2) : d.Int(1, max_heads);
  c.width = c.heads * d.Int(1, max_head_width);
  c.feed_forward = d.Int(1, max_feed_forward);
  c.use_gelu = d.Bool();
  c.norm_first = d.Bool();
  return c;
}

// The constant arguments 1-17 of the op, random weights.
std::vector<c10::IValue> LayerConstants(const LayerCase& c) {
  const int64_t d = c.width, f = c.feed_forward;
  auto weight = [](int64_t rows, int64_t cols) {
    return at::randn({rows, cols}) / std::sqrt(cols);
  };
  return {d,
          c.heads,
          weight(3 * d, d),
          at::randn({3 * d}) * 0.1,
          weight(d, d),
          at::randn({d}) * 0.1,
          c.use_gelu,
          c.norm_first,
          c.eps,
          at::rand({d}) + 0.5,
          at::randn({d}) * 0.1,
          at::rand({d}) + 0.5,
          at::randn({d}) * 0.1,
          weight(f, d),
          at::randn({f}) * 0.1,
          weight(d, f),
          at::randn({d}) * 0.1};
}

struct LayerGraph {
  std::shared_ptr<torch::jit::Graph> graph;
  std::vector<c10::IValue> constants;
  Kernel kernel;
  std::optional<int64_t> row;  // transformer_encoder_layer_row's
};

// The layer's node; with `row`, transformer_encoder_layer_row's.
LayerGraph MakeLayerGraph(const LayerCase& c, std::optional<int64_t> row = std::nullopt) {
  ops::EnsureOperatorsRegistered();
  auto graph = std::make_shared<torch::jit::Graph>();
  std::vector<torch::jit::Value*> inputs = {
      graph->addInput("src")->setType(c10::TensorType::get())};
  const std::vector<c10::IValue> constants = LayerConstants(c);
  for (const c10::IValue& constant : constants) inputs.push_back(graph->insertConstant(constant));
  inputs.push_back(graph->addInput("mask")->setType(c10::OptionalType::ofTensor()));
  inputs.push_back(
      graph->addInput("mask_type")->setType(c10::OptionalType::create(c10::IntType::get())));
  if (row) inputs.push_back(graph->insertConstant(*row));
  torch::jit::Node* node = graph->insertNode(graph->create(
      row ? ops::kTransformerEncoderLayerRow : ops::kTransformerEncoderLayer, inputs, 1));
  node->output()->setType(c10::TensorType::get());
  graph->registerOutput(node->output());
  auto selected = GlobalKernels().Find(node, /*allow_out_variants=*/true);
  EXPECT_TRUE(selected.has_value() && selected->kind == NodeKind::kOutVariant &&
              selected->error_bound);
  return {graph, constants, selected ? selected->kernel : Kernel(), row};
}

std::vector<c10::IValue> Inputs(const LayerGraph& layer, const at::Tensor& src,
                                const c10::IValue& mask = c10::IValue(),
                                const c10::IValue& mask_type = c10::IValue()) {
  std::vector<c10::IValue> inputs = {src};
  inputs.insert(inputs.end(), layer.constants.begin(), layer.constants.end());
  inputs.push_back(mask);
  inputs.push_back(mask_type);
  if (layer.row) inputs.push_back(*layer.row);
  return inputs;
}

// `padded` [B, T, D] as a nested tensor of its sequences, the first
// lengths[b] tokens of each.
at::Tensor Nested(const at::Tensor& padded, const std::vector<int64_t>& lengths) {
  at::Tensor keep = at::zeros({padded.size(0), padded.size(1)}, at::kBool);
  for (size_t b = 0; b < lengths.size(); ++b) keep[b].narrow(0, 0, lengths[b]).fill_(true);
  return at::_nested_tensor_from_mask(padded, keep, /*mask_check=*/true);
}

// ATen's op on `inputs`, every tensor converted to `dtype` (a nested source
// too: of the same sequences).
at::Tensor AtenLayer(const std::vector<c10::IValue>& inputs, at::ScalarType dtype) {
  auto t = [&](size_t i) {
    const at::Tensor& tensor = inputs[i].toTensor();
    if (!tensor.is_nested()) return tensor.to(dtype);
    const at::Tensor sizes = at::native::get_nested_size_tensor(tensor).select(1, 0).contiguous();
    const std::vector<int64_t> lengths(sizes.data_ptr<int64_t>(),
                                       sizes.data_ptr<int64_t>() + sizes.numel());
    return Nested(tensor.to_padded_tensor(0).to(dtype), lengths);
  };
  c10::optional<at::Tensor> mask;
  if (!inputs[18].isNone()) mask = inputs[18].toTensor();
  return at::_transformer_encoder_layer_fwd(
      t(0), inputs[1].toInt(), inputs[2].toInt(), t(3), t(4), t(5), t(6), inputs[7].toBool(),
      inputs[8].toBool(), inputs[9].toDouble(), t(10), t(11), t(12), t(13), t(14), t(15), t(16),
      t(17), mask, inputs[19].toOptional<int64_t>());
}

RC_GTEST_PROP(TransformerEncoderLayerProperty, WithinTheDeclaredBoundOfTheExactResult, ()) {
  at::manual_seed(*rc::gen::inRange(0, 1 << 20));
  Draw d;
  const LayerCase c = DrawLayer(d, 4, 12, 48);
  LayerGraph layer = MakeLayerGraph(c);
  Slots slots(1);
  for (int call = 0; call < 3; ++call) {  // batch and token counts change
    at::Tensor src = at::randn({d.Int(1, 3), d.Int(1, 9), c.width});
    if (d.Int(0, 3) == 0) src = src.transpose(0, 1).contiguous().transpose(0, 1);
    const std::vector<c10::IValue> inputs = Inputs(layer, src);
    RC_ASSERT(slots.Run(layer.kernel, inputs) == "");
    const at::Tensor actual = slots.Output(0).toTensor();
    const at::Tensor exact = AtenLayer(inputs, at::kDouble);
    const std::string ours =
        testing::OutsideBound(ops::TransformerEncoderLayerErrorBound, inputs, exact, actual);
    if (!ours.empty()) {
      RC_FAIL(c10::str("kernel: ", ours, " width ", c.width, " heads ", c.heads, " ffn ",
                       c.feed_forward, " gelu ", c.use_gelu, " norm_first ", c.norm_first, " src ",
                       src.sizes()));
    }
    const std::string atens = testing::OutsideBound(ops::TransformerEncoderLayerErrorBound, inputs,
                                                    exact, AtenLayer(inputs, at::kFloat));
    if (!atens.empty()) RC_FAIL("ATen's layer: " + atens);
  }
}

// The kernel writes into the tensor in its output slot and keeps its
// intermediates in a per-thread workspace: once warm, a call allocates
// nothing.
TEST(TransformerEncoderLayerTest, WritesItsOutputAndReusesItsWorkspace) {
  for (const bool norm_first : {false, true}) {
    LayerCase c;
    c.norm_first = norm_first;
    LayerGraph layer = MakeLayerGraph(c);
    Slots slots(1);
    const std::vector<c10::IValue> inputs = Inputs(layer, at::randn({2, 5, c.width}));
    ASSERT_EQ(slots.Run(layer.kernel, inputs), "");
    const void* output = slots.Output(0).toTensor().data_ptr();
    const at::Tensor first = slots.Output(0).toTensor().clone();
    const memory::CountingAllocator& counter = memory::CountingAllocator::Installed();
    const size_t before = counter.count();
    ASSERT_EQ(slots.Run(layer.kernel, inputs), "");
    EXPECT_EQ(counter.count() - before, 0u);
    EXPECT_EQ(slots.Output(0).toTensor().data_ptr(), output);
    EXPECT_TRUE(at::equal(slots.Output(0).toTensor(), first));

    // A nested source: its result's buffer is the one allocation.
    const at::Tensor nested = Nested(at::randn({3, 6, c.width}), {6, 2, 4});
    ASSERT_EQ(slots.Run(layer.kernel, Inputs(layer, nested)), "");
    const size_t before_nested = counter.count();
    ASSERT_EQ(slots.Run(layer.kernel, Inputs(layer, nested)), "");
    EXPECT_EQ(counter.count() - before_nested, 1u);
  }
}

// A key padding mask (type 1: [B, T], boolean or floating, nonzero masks
// the key): ATen's masked softmax on each sequence's scores, the rest as
// without a mask. A sequence whose every key is masked comes out NaN, as
// ATen's does.
RC_GTEST_PROP(TransformerEncoderLayerProperty, TakesKeyPaddingMasks, ()) {
  at::manual_seed(*rc::gen::inRange(0, 1 << 20));
  Draw d;
  const LayerCase c = DrawLayer(d, 3, 8, 32);
  LayerGraph layer = MakeLayerGraph(c);
  Slots slots(1);
  const int64_t batch = d.Int(1, 3), tokens = d.Int(1, 9);
  const at::Tensor src = at::randn({batch, tokens, c.width});
  at::Tensor mask = at::rand({batch, tokens}) > 0.6;
  const bool fully_masked = d.Int(0, 3) == 0;
  mask.select(1, 0).fill_(false);
  if (fully_masked) mask[0].fill_(true);
  const c10::IValue given = d.Bool() ? mask : mask.to(at::kFloat);
  const std::vector<c10::IValue> inputs = Inputs(layer, src, given, 1);
  RC_ASSERT(slots.Run(layer.kernel, inputs) == "");
  const at::Tensor actual = slots.Output(0).toTensor();
  const at::Tensor aten = AtenLayer(inputs, at::kFloat);
  RC_ASSERT(at::equal(at::isnan(actual), at::isnan(aten)));
  RC_ASSERT(at::isnan(actual[0]).all().item<bool>() == fully_masked);
  const int64_t first = fully_masked ? 1 : 0;  // the sequences with numbers
  if (first == batch) return;
  const std::vector<c10::IValue> rest =
      Inputs(layer, src.narrow(0, first, batch - first), mask.narrow(0, first, batch - first), 1);
  const at::Tensor exact = AtenLayer(rest, at::kDouble);
  const std::string ours = testing::OutsideBound(ops::TransformerEncoderLayerErrorBound, rest,
                                                 exact, actual.narrow(0, first, batch - first));
  if (!ours.empty()) RC_FAIL("kernel with a mask: " + ours);
}

// A nested source (nn.TransformerEncoder's fast path): each sequence on its
// own tokens, into a nested result of the same sizes, within the bound of
// ATen's nested layer computed in float64.
RC_GTEST_PROP(TransformerEncoderLayerProperty, TakesNestedSources, ()) {
  at::manual_seed(*rc::gen::inRange(0, 1 << 20));
  Draw d;
  const LayerCase c = DrawLayer(d, 4, 8, 32, /*even_heads=*/true);
  LayerGraph layer = MakeLayerGraph(c);
  Slots slots(1);
  for (int call = 0; call < 3; ++call) {  // the lengths change
    const int64_t batch = d.Int(1, 4), tokens = d.Int(1, 12);
    std::vector<int64_t> lengths;
    for (int64_t b = 0; b < batch; ++b) lengths.push_back(d.Int(1, tokens));
    const at::Tensor src = Nested(at::randn({batch, tokens, c.width}), lengths);
    const std::vector<c10::IValue> inputs = Inputs(layer, src);
    RC_ASSERT(slots.Run(layer.kernel, inputs) == "");
    const at::Tensor actual = slots.Output(0).toTensor();
    RC_ASSERT(actual.is_nested());
    RC_ASSERT(at::equal(at::native::get_nested_size_tensor(actual),
                        at::native::get_nested_size_tensor(src)));
    const at::Tensor exact = AtenLayer(inputs, at::kDouble).to_padded_tensor(0);
    const std::string ours = testing::OutsideBound(ops::TransformerEncoderLayerErrorBound, inputs,
                                                   exact, actual.to_padded_tensor(0));
    if (!ours.empty()) RC_FAIL("kernel on a nested source: " + ours);
  }
}

// What the kernel does not take runs ATen's op: an attention mask (type 0,
// which ATen refuses on the CPU) and a source of the wrong width give
// ATen's error, and the kernel stays usable.
TEST(TransformerEncoderLayerTest, LeavesWhatItDoesNotTakeToAten) {
  LayerCase c;
  LayerGraph layer = MakeLayerGraph(c);
  Slots slots(1);
  const at::Tensor src = at::randn({2, 5, c.width});
  for (const std::vector<c10::IValue>& inputs :
       {Inputs(layer, at::randn({2, 5, c.width - 1})),
        Inputs(layer, src, at::zeros({5, 5}, at::kBool), 0)}) {
    EXPECT_EQ(
        testing::RejectsAsAten([&] { AtenLayer(inputs, at::kFloat); }, slots, layer.kernel, inputs),
        "");
  }
  EXPECT_EQ(slots.Run(layer.kernel, Inputs(layer, src)), "");  // still usable
}

// transformer_encoder_layer_row on a dense source (with or without a key
// padding mask) or a nested one: the layer's result at token `row` of each
// sequence (negative: from the end of the longest) within the layer's
// bound, and exactly 0 at every other token, also where a sequence is too
// short to have that token.
RC_GTEST_PROP(TransformerEncoderLayerProperty, RowLayerComputesOneTokenOfEachSequence, ()) {
  at::manual_seed(*rc::gen::inRange(0, 1 << 20));
  Draw d;
  const LayerCase c = DrawLayer(d, 4, 8, 32, /*even_heads=*/true);
  const int64_t batch = d.Int(1, 4), tokens = d.Int(1, 10);
  const int64_t row = d.Int(-tokens - 1, tokens);
  LayerGraph layer = MakeLayerGraph(c, row);
  Slots slots(1);
  for (int call = 0; call < 3; ++call) {  // dense, masked, nested
    at::Tensor src = at::randn({batch, tokens, c.width});
    c10::IValue mask, mask_type;
    if (call == 1) {
      at::Tensor keys = at::rand({batch, tokens}) > 0.6;
      keys.select(1, 0).fill_(false);
      mask = keys;
      mask_type = 1;
    } else if (call == 2) {
      std::vector<int64_t> lengths;
      for (int64_t b = 0; b < batch; ++b) lengths.push_back(d.Int(1, tokens));
      src = Nested(src, lengths);
    }
    const std::vector<c10::IValue> inputs = Inputs(layer, src, mask, mask_type);
    RC_ASSERT(slots.Run(layer.kernel, inputs) == "");
    const at::Tensor actual = slots.Output(0).toTensor();
    RC_ASSERT(actual.is_nested() == src.is_nested());
    const at::Tensor exact = ops::KeepSequenceRow(AtenLayer(inputs, at::kDouble), row);
    auto padded = [](const at::Tensor& t) { return t.is_nested() ? t.to_padded_tensor(0) : t; };
    const at::Tensor kept =
        padded(ops::KeepSequenceRow(src.is_nested() ? src : at::ones_like(src), row)) != 0;
    const at::Tensor ours = padded(actual);
    RC_ASSERT(at::equal(at::where(kept, at::zeros_like(ours), ours), at::zeros_like(ours)));
    const std::string outside =
        testing::OutsideBound(ops::TransformerEncoderLayerErrorBound, inputs, padded(exact), ours);
    if (!outside.empty()) {
      RC_FAIL(c10::str("row ", row, " of ", src.is_nested() ? "nested " : "", "source ", batch,
                       " x ", tokens, ": ", outside));
    }
  }
}

TEST(TransformerEncoderLayerTest, OneKernelRunsOnSeveralThreadsAtOnce) {
  LayerCase c;
  c.width = 32;
  c.heads = 4;
  c.feed_forward = 64;
  LayerGraph layer = MakeLayerGraph(c);
  std::vector<std::vector<c10::IValue>> input_sets;
  for (const auto& shape : {std::vector<int64_t>{1, 7, 32}, std::vector<int64_t>{3, 4, 32},
                            std::vector<int64_t>{2, 16, 32}}) {
    input_sets.push_back(Inputs(layer, at::randn(shape)));
  }
  const std::vector<std::string> failures =
      testing::SameResultsOnSeveralThreads(layer.kernel, input_sets);
  for (size_t t = 0; t < failures.size(); ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

}  // namespace
}  // namespace static_runtime
