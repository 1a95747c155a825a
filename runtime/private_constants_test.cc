#include "runtime/private_constants.h"

#include <memory>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/core/jit_type.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace static_runtime {
namespace {

TEST(PrivateConstantTest, TensorIsANewTensorImplOverTheSameStorage) {
  const at::Tensor weight = at::arange(24, at::kFloat).reshape({4, 6}).t().narrow(0, 1, 4);
  const c10::IValue copy = PrivateConstant(weight);
  ASSERT_TRUE(copy.isTensor());
  const at::Tensor& tensor = copy.toTensor();
  EXPECT_NE(tensor.unsafeGetTensorImpl(), weight.unsafeGetTensorImpl());
  EXPECT_EQ(tensor.data_ptr(), weight.data_ptr());
  EXPECT_EQ(tensor.sizes(), weight.sizes());
  EXPECT_EQ(tensor.strides(), weight.strides());
  EXPECT_EQ(tensor.storage_offset(), weight.storage_offset());
  EXPECT_EQ(tensor.scalar_type(), weight.scalar_type());
  EXPECT_TRUE(tensor.equal(weight));
  EXPECT_EQ(tensor.use_count(), 1);
  // One version counter: an in-place change through either is seen as one.
  const int64_t version = weight._version();
  at::Tensor(tensor).add_(1);
  EXPECT_EQ(weight._version(), version + 1);
  EXPECT_TRUE(tensor.equal(weight));
}

TEST(PrivateConstantTest, KeepsRequiresGradAndTheUndefinedTensor) {
  const at::Tensor parameter = at::ones({3}).set_requires_grad(true);
  EXPECT_TRUE(PrivateConstant(parameter).toTensor().requires_grad());
  EXPECT_FALSE(PrivateConstant(at::ones({3})).toTensor().requires_grad());
  EXPECT_FALSE(PrivateConstant(at::Tensor()).toTensor().defined());
}

TEST(PrivateConstantTest, StringIsANewEqualString) {
  const c10::IValue key("user_features");
  const c10::IValue copy = PrivateConstant(key);
  ASSERT_TRUE(copy.isString());
  EXPECT_EQ(copy.toStringRef(), "user_features");
  EXPECT_FALSE(copy.is(key));
}

TEST(PrivateConstantTest, ContainersAreNewWithTheirTypesAndCopiedElements) {
  c10::impl::GenericDict dict(c10::StringType::get(), c10::TensorType::get());
  dict.insert("a", at::ones({2}));
  dict.insert("b", at::zeros({1}));
  const c10::IValue tuple =
      c10::ivalue::Tuple::create({c10::IValue(dict), c10::IValue(c10::List<int64_t>({1, 2, 3})),
                                  c10::IValue("s"), c10::IValue(2.5), c10::IValue()});
  const c10::IValue copy = PrivateConstant(tuple);
  ASSERT_TRUE(copy.isTuple());
  EXPECT_FALSE(copy.is(tuple));
  EXPECT_EQ(*copy.type(), *tuple.type());
  const auto& elements = copy.toTupleRef().elements();
  ASSERT_EQ(elements.size(), 5u);

  const c10::impl::GenericDict dict_copy = elements[0].toGenericDict();
  EXPECT_FALSE(elements[0].is(c10::IValue(dict)));
  EXPECT_EQ(*dict_copy.keyType(), *c10::StringType::get());
  EXPECT_EQ(*dict_copy.valueType(), *c10::TensorType::get());
  ASSERT_EQ(dict_copy.size(), 2u);
  auto entry = dict_copy.begin();
  EXPECT_EQ(entry->key().toStringRef(), "a");  // insertion order kept
  EXPECT_EQ(entry->value().toTensor().data_ptr(), dict.at("a").toTensor().data_ptr());
  EXPECT_NE(entry->value().toTensor().unsafeGetTensorImpl(),
            dict.at("a").toTensor().unsafeGetTensorImpl());
  ++entry;
  EXPECT_EQ(entry->key().toStringRef(), "b");

  ASSERT_TRUE(elements[1].isIntList());
  EXPECT_THAT(elements[1].toIntVector(), testing::ElementsAre(1, 2, 3));
  EXPECT_FALSE(elements[1].is(tuple.toTupleRef().elements()[1]));
  EXPECT_EQ(elements[2].toStringRef(), "s");
  EXPECT_EQ(elements[3].toDouble(), 2.5);
  EXPECT_TRUE(elements[4].isNone());
}

TEST(PrivateConstantTest, NamedTupleKeepsItsType) {
  const auto type = c10::TupleType::createNamed(
      "Pair", std::vector<std::string>{"first", "second"},
      std::vector<c10::TypePtr>{c10::IntType::get(), c10::StringType::get()});
  const c10::IValue pair =
      c10::ivalue::Tuple::createNamed({c10::IValue(1), c10::IValue("x")}, type);
  const c10::IValue copy = PrivateConstant(pair);
  EXPECT_FALSE(copy.is(pair));
  const auto copy_type = copy.toTupleRef().type();
  ASSERT_NE(copy_type->schema(), nullptr);
  EXPECT_EQ(*copy_type, *type);
  EXPECT_EQ(copy_type->name(), type->name());
  EXPECT_EQ(copy.toTupleRef().elements()[1].toStringRef(), "x");
}

TEST(PrivateConstantTest, OtherValuesAreReturnedAsTheyAre) {
  EXPECT_EQ(PrivateConstant(c10::IValue(7)).toInt(), 7);
  EXPECT_EQ(PrivateConstant(c10::IValue(c10::Device("cpu"))).toDevice(), c10::Device("cpu"));
  EXPECT_TRUE(PrivateConstant(c10::IValue()).isNone());
  const auto future = c10::make_intrusive<c10::ivalue::Future>(c10::IntType::get());
  const c10::IValue value(future);
  EXPECT_TRUE(PrivateConstant(value).is(value));
}

}  // namespace
}  // namespace static_runtime
