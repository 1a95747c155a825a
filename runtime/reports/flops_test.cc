#include "runtime/reports/flops.h"

#include <memory>
#include <vector>

#include "ATen/ATen.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "load/load.h"

namespace static_runtime {
namespace reports {
namespace {

// The first node of `ir`, with `inputs` and `outputs` in a value table.
struct OneNode {
  std::shared_ptr<torch::jit::Graph> graph;
  std::vector<c10::IValue> values;
  std::vector<ValueIndex> input_slots, output_slots;

  OneNode(const char* ir, std::vector<c10::IValue> inputs, std::vector<c10::IValue> outputs) {
    auto parsed = ParseGraphIR(ir);
    EXPECT_TRUE(parsed.ok()) << parsed.status();
    graph = *parsed;
    for (auto& value : inputs) {
      input_slots.push_back(values.size());
      values.push_back(value);
    }
    for (auto& value : outputs) {
      output_slots.push_back(values.size());
      values.push_back(value);
    }
  }
  double Flops() {
    return NodeFlops(**graph->nodes().begin(), NodeIO(values.data(), input_slots, output_slots));
  }
};

TEST(FlopsTest, CountsTwoPerMultiplyAdd) {
  // [4, 8] x [8, 3]: 12 outputs of 8 multiply-adds.
  OneNode mm(R"IR(graph(%a : Tensor, %b : Tensor):
  %c : Tensor = aten::mm(%a, %b)
  return (%c))IR",
             {at::ones({4, 8}), at::ones({8, 3})}, {at::ones({4, 3})});
  EXPECT_EQ(mm.Flops(), 2.0 * 12 * 8);
  // linear: weight [5, 8] on [2, 8].
  OneNode linear(R"IR(graph(%x : Tensor, %w : Tensor, %b : Tensor):
  %y : Tensor = aten::linear(%x, %w, %b)
  return (%y))IR",
                 {at::ones({2, 8}), at::ones({5, 8}), at::ones({5})}, {at::ones({2, 5})});
  EXPECT_EQ(linear.Flops(), 2.0 * 10 * 8);
  // conv2d: weight [6, 3/groups 1 -> 3, 3, 3] on an output of [1, 6, 4, 4].
  OneNode conv(
      R"IR(graph(%x : Tensor, %w : Tensor, %b : Tensor?, %s : int[], %p : int[], %d : int[], %g : int):
  %y : Tensor = aten::conv2d(%x, %w, %b, %s, %p, %d, %g)
  return (%y))IR",
      {at::ones({1, 3, 6, 6}), at::ones({6, 3, 3, 3}), c10::IValue(), c10::List<int64_t>({1, 1}),
       c10::List<int64_t>({0, 0}), c10::List<int64_t>({1, 1}), int64_t{1}},
      {at::ones({1, 6, 4, 4})});
  EXPECT_EQ(conv.Flops(), 2.0 * 96 * 27);
  // addmm reduces over mat1's last dimension.
  OneNode addmm(R"IR(graph(%s : Tensor, %a : Tensor, %b : Tensor):
  %c : Tensor = aten::addmm(%s, %a, %b)
  return (%c))IR",
                {at::ones({3}), at::ones({2, 7}), at::ones({7, 3})}, {at::ones({2, 3})});
  EXPECT_EQ(addmm.Flops(), 2.0 * 6 * 7);
}

// Self-attention of width 8 (2 heads) over 2 sequences of 3 tokens: 4 D^2
// multiply-adds a token for the projections, 2 n^2 D a sequence for the
// scores and the weighted sum; an encoder layer adds 2 D F a token (F = 16).
// A nested source counts each sequence's own tokens (3 and 1).
TEST(FlopsTest, CountsAttentionOverEachSequencesTokens) {
  const double d = 8, f = 16;
  auto attention = [](int64_t n) { return n * 4 * 8.0 * 8 + 2.0 * n * n * 8; };
  std::vector<c10::IValue> mha_inputs = {at::ones({2, 3, 8}), at::ones({2, 3, 8}),
                                         at::ones({2, 3, 8}), int64_t{8}, int64_t{2}};
  OneNode mha(
      R"IR(graph(%q : Tensor, %k : Tensor, %v : Tensor, %d : int, %h : int, %w : Tensor, %b : Tensor, %wo : Tensor, %bo : Tensor, %m : Tensor?, %nw : bool, %avg : bool, %mt : int?):
  %o : Tensor, %weights : Tensor = aten::_native_multi_head_attention(%q, %k, %v, %d, %h, %w, %b, %wo, %bo, %m, %nw, %avg, %mt)
  return (%o))IR",
      mha_inputs, {at::ones({2, 3, 8}), at::Tensor()});
  EXPECT_EQ(mha.Flops(), 2 * 2 * attention(3));

  std::vector<c10::IValue> layer_inputs(20);
  layer_inputs[1] = int64_t{8};
  layer_inputs[14] = at::ones({16, 8});
  const char* layer_ir =
      R"IR(graph(%x : Tensor, %d : int, %h : int, %w : Tensor, %b : Tensor, %wo : Tensor, %bo : Tensor, %gelu : bool, %first : bool, %eps : float, %n1 : Tensor, %n1b : Tensor, %n2 : Tensor, %n2b : Tensor, %f1 : Tensor, %f1b : Tensor, %f2 : Tensor, %f2b : Tensor, %m : Tensor?, %mt : int?):
  %y : Tensor = aten::_transformer_encoder_layer_fwd(%x, %d, %h, %w, %b, %wo, %bo, %gelu, %first, %eps, %n1, %n1b, %n2, %n2b, %f1, %f1b, %f2, %f2b, %m, %mt)
  return (%y))IR";
  layer_inputs[0] = at::ones({2, 3, 8});
  OneNode dense(layer_ir, layer_inputs, {at::ones({2, 3, 8})});
  EXPECT_EQ(dense.Flops(), 2 * (2 * attention(3) + 6 * 2 * d * f));
  at::Tensor keep = at::zeros({2, 3}, at::kBool);
  keep[0].fill_(true);
  keep[1][0] = true;
  layer_inputs[0] = at::_nested_tensor_from_mask(at::ones({2, 3, 8}), keep, true);
  OneNode nested(layer_ir, layer_inputs, {layer_inputs[0]});
  EXPECT_EQ(nested.Flops(), 2 * (attention(3) + attention(1) + 4 * 2 * d * f));

  // transformer_encoder_layer_row: the q, k, v projection of every token,
  // the rest for the one token of each sequence that has it (the last of
  // the longest: only the first sequence's).
  layer_inputs.push_back(int64_t{-1});
  const char* row_ir =
      R"IR(graph(%x : Tensor, %d : int, %h : int, %w : Tensor, %b : Tensor, %wo : Tensor, %bo : Tensor, %gelu : bool, %first : bool, %eps : float, %n1 : Tensor, %n1b : Tensor, %n2 : Tensor, %n2b : Tensor, %f1 : Tensor, %f1b : Tensor, %f2 : Tensor, %f2b : Tensor, %m : Tensor?, %mt : int?, %row : int):
  %y : Tensor = static_runtime::transformer_encoder_layer_row(%x, %d, %h, %w, %b, %wo, %bo, %gelu, %first, %eps, %n1, %n1b, %n2, %n2b, %f1, %f1b, %f2, %f2b, %m, %mt, %row)
  return (%y))IR";
  OneNode row(row_ir, layer_inputs, {layer_inputs[0]});
  EXPECT_EQ(row.Flops(), 2 * (4 * 3 * d * d + d * d + 2 * d * f + 2 * 3 * d));
}

TEST(FlopsTest, OtherNodesAndMissingValuesCountNothing) {
  OneNode relu(R"IR(graph(%a : Tensor):
  %c : Tensor = aten::relu(%a)
  return (%c))IR",
               {at::ones({4})}, {at::ones({4})});
  EXPECT_EQ(relu.Flops(), 0);
  OneNode unset(R"IR(graph(%a : Tensor, %b : Tensor):
  %c : Tensor = aten::mm(%a, %b)
  return (%c))IR",
                {at::ones({4, 8}), at::ones({8, 3})}, {c10::IValue()});
  EXPECT_EQ(unset.Flops(), 0);
}

TEST(FlopsTest, PeakIsTheFasterProductOverItsSamples) {
  PeakProductMeter meter;
  EXPECT_EQ(meter.Result().gflops, 0);
  EXPECT_EQ(meter.Result().kernel, "");
  for (int i = 0; i < 3; ++i) meter.Sample();
  const PeakProduct peak = meter.Result();
  EXPECT_GT(peak.gflops, 0);
  // The mean over the calls is no faster than the fastest call.
  EXPECT_GE(peak.best_gflops, peak.gflops);
  EXPECT_THAT(peak.kernel, testing::AnyOf("oneDNN's sgemm", "ATen's mm (BLAS)"));
}

}  // namespace
}  // namespace reports
}  // namespace static_runtime
