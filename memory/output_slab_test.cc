#include "memory/output_slab.h"

#include <cstdint>
#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "memory/counting_allocator.h"

namespace static_runtime {
namespace memory {
namespace {

const CountingAllocator& Counter() { return CountingAllocator::Installed(); }

// Three slots: a float output, a double output and one a run leaves empty.
struct Slots {
  std::vector<c10::IValue> values = std::vector<c10::IValue>(3);
  absl::Span<c10::IValue> span() { return absl::MakeSpan(values); }
};

TEST(OutputSlabTest, NothingBeforeARunIsLearned) {
  OutputSlab slab({0, 1, 2});
  Slots run;
  const size_t before = Counter().count();
  slab.Allocate(run.span());
  EXPECT_EQ(Counter().count(), before);
  for (const c10::IValue& value : run.values) EXPECT_TRUE(value.isNone());
  EXPECT_EQ(slab.bytes(), 0u);
}

TEST(OutputSlabTest, OneAllocationHoldsEveryLearnedTensor) {
  OutputSlab slab({0, 1, 2});
  Slots first;
  first.values[0] = at::ones({10}, at::kFloat);
  first.values[1] = at::ones({3}, at::kDouble);
  slab.Learn(first.values);
  EXPECT_EQ(slab.bytes(), 128u);  // 40 and 24 bytes, each 64-byte aligned

  Slots run;
  const size_t before = Counter().count();
  slab.Allocate(run.span());
  EXPECT_EQ(Counter().count(), before + 1);
  ASSERT_TRUE(run.values[0].isTensor());
  ASSERT_TRUE(run.values[1].isTensor());
  EXPECT_TRUE(run.values[2].isNone());
  const at::Tensor& floats = run.values[0].toTensor();
  const at::Tensor& doubles = run.values[1].toTensor();
  EXPECT_EQ(floats.scalar_type(), at::kFloat);
  EXPECT_EQ(doubles.scalar_type(), at::kDouble);
  EXPECT_EQ(floats.numel(), 0);
  EXPECT_EQ(floats.storage().nbytes(), 40u);
  EXPECT_EQ(doubles.storage().nbytes(), 24u);
  const auto address = [](const at::Tensor& t) {
    return reinterpret_cast<uintptr_t>(t.storage().data());
  };
  EXPECT_EQ(address(floats) % 64, 0u);
  EXPECT_EQ(address(doubles) % 64, 0u);
  EXPECT_EQ(address(doubles) - address(floats), 64u);
  // Each piece is a storage of its own.
  EXPECT_NE(floats.storage().unsafeGetStorageImpl(), doubles.storage().unsafeGetStorageImpl());
}

TEST(OutputSlabTest, KernelsWriteIntoThePiecesWithoutAllocating) {
  OutputSlab slab({0});
  Slots first;
  first.values[0] = at::zeros({2, 5});
  slab.Learn(first.values);
  Slots run;
  slab.Allocate(run.span());
  at::Tensor out = run.values[0].toTensor();
  const void* piece = out.storage().data();
  const at::Tensor a = at::arange(10, at::kFloat).view({2, 5});
  const size_t before = Counter().count();
  at::add_out(out, a, a);
  EXPECT_EQ(Counter().count(), before);
  EXPECT_EQ(out.storage().data(), piece);
  EXPECT_TRUE(at::equal(out, a * 2));
}

TEST(OutputSlabTest, APieceOutlivesTheOthersAndTheRun) {
  OutputSlab slab({0, 1});
  Slots first;
  first.values[0] = at::zeros({4});
  first.values[1] = at::zeros({4});
  slab.Learn(first.values);
  at::Tensor kept;
  {
    Slots run;
    slab.Allocate(run.span());
    kept = run.values[0].toTensor();
    kept.resize_({4}).fill_(7.0);
  }  // the run's values, and the other piece, are gone
  Slots next;
  slab.Allocate(next.span());
  next.values[0].toTensor().resize_({4}).fill_(1.0);
  EXPECT_TRUE(at::equal(kept, at::full({4}, 7.0)));  // ASan: still the first slab's memory
}

TEST(OutputSlabTest, ASlabNothingHoldsIsReusedWithoutAllocating) {
  OutputSlab slab({0, 1});
  Slots first;
  first.values[0] = at::zeros({4});
  first.values[1] = at::zeros({4});
  slab.Learn(first.values);
  const void* memory = nullptr;
  {
    Slots run;
    slab.Allocate(run.span());
    memory = run.values[0].toTensor().storage().data();
  }  // the caller let go of every tensor
  size_t before = Counter().count();
  at::Tensor kept;
  {
    Slots run;
    slab.Allocate(run.span());
    EXPECT_EQ(Counter().count(), before);
    EXPECT_EQ(run.values[0].toTensor().storage().data(), memory);
    kept = run.values[1].toTensor();
  }
  // One tensor of the last run is still held: a new slab.
  before = Counter().count();
  {
    Slots run;
    slab.Allocate(run.span());
    EXPECT_EQ(Counter().count(), before + 1);
    EXPECT_NE(run.values[0].toTensor().storage().data(), memory);
  }
  // A larger slab is needed: a new one.
  Slots larger;
  larger.values[0] = at::zeros({100});
  slab.Learn(larger.values);
  kept.reset();
  {
    Slots run;
    slab.Allocate(run.span());  // the second one, nothing holds it, but too small
  }
  before = Counter().count();
  Slots run;
  slab.Allocate(run.span());
  EXPECT_EQ(Counter().count(), before);  // the new size's slab, reused
}

TEST(OutputSlabTest, AnOutgrownPieceIsReplacedAndTheNextSlabIsLarger) {
  OutputSlab slab({0});
  Slots first;
  first.values[0] = at::zeros({4});
  slab.Learn(first.values);
  Slots run;
  slab.Allocate(run.span());
  at::Tensor out = run.values[0].toTensor();
  const at::Tensor ones = at::ones({100});
  const size_t before = Counter().count();
  at::add_out(out, ones, ones);
  EXPECT_EQ(Counter().count(), before + 1);  // ordinary memory for the larger result
  EXPECT_TRUE(at::equal(out, at::full({100}, 2.0)));
  slab.Learn(run.values);
  EXPECT_EQ(slab.bytes(), 448u);  // 400 bytes, aligned
}

TEST(OutputSlabTest, OtherKindsOfTensorAreNotLearned) {
  OutputSlab slab({0, 1});
  Slots first;
  first.values[0] = at::quantize_per_tensor(at::ones({4}), 0.1, 0, at::kQInt8);
  first.values[1] = at::ones({2}).to_sparse();
  slab.Learn(first.values);
  EXPECT_EQ(slab.bytes(), 0u);
}

}  // namespace
}  // namespace memory
}  // namespace static_runtime
