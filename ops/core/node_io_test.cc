// NodeIO maps a node's input and output positions to the runtime's value
// slots; a const NodeIO (what a NodeObserver is shown) reads them only.
#include "ops/core/node_io.h"

#include <type_traits>
#include <utility>
#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"

namespace static_runtime {
namespace {

template <typename T, typename = void>
struct HandsOutMutableSlots : std::false_type {};
template <typename T>
struct HandsOutMutableSlots<T, std::void_t<decltype(std::declval<T&>().values())>>
    : std::true_type {};

template <typename T, typename = void>
struct HasWritableOutput : std::false_type {};
template <typename T>
struct HasWritableOutput<T, std::enable_if_t<!std::is_const_v<std::remove_reference_t<
                                decltype(std::declval<T&>().Output(size_t{0}))>>>>
    : std::true_type {};

static_assert(HandsOutMutableSlots<NodeIO>::value, "a kernel runs other kernels on its slots");
static_assert(!HandsOutMutableSlots<const NodeIO>::value,
              "an observer must not reach the value slots through values()");
static_assert(HasWritableOutput<NodeIO>::value, "a kernel writes its outputs");
static_assert(!HasWritableOutput<const NodeIO>::value, "an observer must not write an output");

TEST(NodeIOTest, PositionsMapToTheirSlots) {
  std::vector<c10::IValue> values = {c10::IValue(1), c10::IValue(2), c10::IValue(3), c10::IValue()};
  const std::vector<ValueIndex> inputs = {2, 0};
  const std::vector<ValueIndex> outputs = {3};
  NodeIO io(values.data(), inputs, outputs);
  ASSERT_EQ(io.num_inputs(), 2u);
  ASSERT_EQ(io.num_outputs(), 1u);
  EXPECT_EQ(io.Input(0).toInt(), 3);
  EXPECT_EQ(io.Input(1).toInt(), 1);
  EXPECT_EQ(io.InputIndex(0), 2u);
  EXPECT_EQ(io.OutputIndex(0), 3u);
  io.Output(0) = at::ones({2});
  const NodeIO& observed = io;
  EXPECT_TRUE(observed.Output(0).isTensor());
  EXPECT_TRUE(values[3].isTensor());
  EXPECT_EQ(io.values(), values.data());
}

}  // namespace
}  // namespace static_runtime
