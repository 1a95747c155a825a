#include "runtime/value_layout.h"

#include "gtest/gtest.h"
#include "load/load.h"

namespace static_runtime {
namespace {

constexpr char kIR[] = R"IR(
graph(%x : Tensor, %n : int):
  %one : int = prim::Constant[value=1]()
  %true : bool = prim::Constant[value=1]()
  %y : Tensor = prim::Loop(%n, %true, %x)
    block0(%i : int, %acc : Tensor):
      %two : float = prim::Constant[value=2.]()
      %next : Tensor = aten::mul(%acc, %two)
      -> (%true, %next)
  %m : int = aten::add(%n, %one)
  return (%y, %m))IR";

TEST(ValueLayoutTest, InputsThenConstantsThenEverythingElse) {
  auto graph = ParseGraphIR(kIR);
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<ValueLayout> layout = ValueLayout::Build(**graph);
  ASSERT_TRUE(layout.ok()) << layout.status();
  // x, n | one, true, two | y, i, acc, next, m
  EXPECT_EQ(layout->num_inputs(), 2u);
  EXPECT_EQ(layout->constants_end(), 5u);
  EXPECT_EQ(layout->num_slots(), 10u);
  EXPECT_EQ(layout->SlotOf((*graph)->inputs()[1]), 1u);
  EXPECT_EQ(layout->constants()[0].toInt(), 1);
  EXPECT_EQ(layout->constants()[2].toDouble(), 2.0);
  EXPECT_EQ(layout->SlotOf((*graph)->outputs()[1]), 9u);
}

TEST(ValueLayoutTest, TooManyValuesIsAClearError) {
  auto graph = ParseGraphIR(kIR);
  ASSERT_TRUE(graph.ok()) << graph.status();
  absl::StatusOr<ValueLayout> layout = ValueLayout::Build(**graph, /*max_slots=*/9);
  ASSERT_FALSE(layout.ok());
  EXPECT_EQ(layout.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(layout.status().message(),
            "the graph has 10 values, more than the 9 value slots the runtime can index");
}

}  // namespace
}  // namespace static_runtime
