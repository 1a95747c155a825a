#include "ops/prim/recycled_containers.h"

#include "ATen/ATen.h"
#include "gtest/gtest.h"

namespace static_runtime {
namespace {

c10::IValue ListOf(std::vector<at::Tensor> tensors) {
  return c10::List<at::Tensor>(std::move(tensors));
}

TEST(RecycledContainersTest, AListOnlyItsSlotHoldsIsEmptiedAndReused) {
  c10::IValue slot = ListOf({at::ones({2}), at::zeros({3})});
  const void* list = slot.internalToPointer();
  DropOrEmpty(slot);
  ASSERT_TRUE(slot.isList());
  EXPECT_EQ(slot.internalToPointer(), list);
  EXPECT_EQ(slot.toListRef().size(), 0u);

  slot = ListOf({at::ones({2})});
  list = slot.internalToPointer();
  c10::impl::GenericList reused = ReusedList(slot, c10::TensorType::get());
  EXPECT_EQ(reused.size(), 0u);
  EXPECT_TRUE(slot.isNone());
  EXPECT_EQ(c10::IValue(reused).internalToPointer(), list);
}

TEST(RecycledContainersTest, AListHeldElsewhereIsNeitherEmptiedNorReused) {
  const at::Tensor element = at::ones({2});
  c10::IValue slot = ListOf({element});
  const c10::IValue caller = slot;  // the caller keeps the list a run returned
  DropOrEmpty(slot);
  EXPECT_TRUE(slot.isNone());
  ASSERT_EQ(caller.toListRef().size(), 1u);
  EXPECT_TRUE(caller.toListRef()[0].toTensor().is_same(element));

  slot = caller;
  c10::impl::GenericList fresh = ReusedList(slot, c10::TensorType::get());
  EXPECT_NE(c10::IValue(fresh).internalToPointer(), caller.internalToPointer());
  EXPECT_EQ(caller.toListRef().size(), 1u);
  EXPECT_TRUE(*fresh.elementType() == *c10::TensorType::get());
}

TEST(RecycledContainersTest, DictsAsLists) {
  c10::Dict<std::string, at::Tensor> typed;
  typed.insert("a", at::ones({1}));
  c10::IValue slot = typed;
  typed = c10::Dict<std::string, at::Tensor>();  // the slot holds the only reference
  const void* dict = slot.internalToPointer();
  DropOrEmpty(slot);
  ASSERT_TRUE(slot.isGenericDict());
  EXPECT_EQ(slot.internalToPointer(), dict);
  EXPECT_EQ(slot.toGenericDict().size(), 0u);
  c10::impl::GenericDict reused = ReusedDict(slot, c10::StringType::get(), c10::TensorType::get());
  EXPECT_EQ(c10::IValue(reused).internalToPointer(), dict);

  const c10::IValue caller = reused;
  slot = caller;
  DropOrEmpty(slot);
  EXPECT_TRUE(slot.isNone());
  EXPECT_EQ(caller.toGenericDict().size(), 0u);
  slot = caller;
  c10::impl::GenericDict fresh = ReusedDict(slot, c10::StringType::get(), c10::TensorType::get());
  EXPECT_NE(c10::IValue(fresh).internalToPointer(), dict);
}

TEST(RecycledContainersTest, OtherValuesAreDropped) {
  for (c10::IValue value : {c10::IValue(at::ones({1})), c10::IValue(int64_t{3}),
                            c10::IValue(c10::ivalue::Tuple::create({int64_t{1}}))}) {
    DropOrEmpty(value);
    EXPECT_TRUE(value.isNone());
  }
  c10::IValue none;
  c10::impl::GenericList list = ReusedList(none, c10::IntType::get());
  EXPECT_TRUE(*list.elementType() == *c10::IntType::get());
}

TEST(RecycledContainersTest, WhatBuildsThem) {
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::Value* x = graph->addInput("x");
  x->setType(c10::TensorType::get());
  EXPECT_TRUE(BuildsRecycledContainer(graph->createList(c10::TensorType::get(), {x})));
  EXPECT_TRUE(BuildsRecycledContainer(
      graph->createDict(c10::StringType::get(), c10::TensorType::get(), {}, {})));
  EXPECT_FALSE(BuildsRecycledContainer(graph->createTuple({x})));
}

}  // namespace
}  // namespace static_runtime
