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

TEST(FlopsTest, PeakIsTheFasterProduct) {
  const PeakProduct peak = MeasurePeakProduct();
  EXPECT_GT(peak.gflops, 0);
  EXPECT_THAT(peak.kernel, testing::AnyOf("oneDNN's sgemm", "ATen's mm (BLAS)"));
}

}  // namespace
}  // namespace reports
}  // namespace static_runtime
