// CopyRows against ATen's contiguous(): random ranks, sizes, dtypes and
// layouts (permuted, sliced with a step, expanded), bit for bit where it
// copies, the target untouched where it declines; and the layouts it is
// for (a channel shuffle, attention's heads) taken.
#include "ops/tensor/row_copy.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "ATen/ATen.h"
#include "c10/core/InferenceMode.h"
#include "gtest/gtest.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace {

bool SameBytes(const at::Tensor& a, const at::Tensor& b) {
  return a.sizes() == b.sizes() && a.scalar_type() == b.scalar_type() &&
         std::equal(static_cast<const char*>(a.data_ptr()),
                    static_cast<const char*>(a.data_ptr()) + a.nbytes(),
                    static_cast<const char*>(b.data_ptr()));
}

RC_GTEST_PROP(RowCopy, EqualsAtensContiguousOrCopiesNothing, ()) {
  c10::InferenceMode inference;
  const at::ScalarType dtype =
      *rc::gen::element(at::kFloat, at::kDouble, at::kLong, at::kInt, at::kBool, at::kByte);
  const int64_t rank = *rc::gen::inRange<int64_t>(1, 6);
  std::vector<int64_t> sizes(rank);
  for (int64_t& size : sizes) size = *rc::gen::inRange<int64_t>(0, 7);
  // Mostly rows long enough to copy: a long last dim that stays last.
  const bool rows = *rc::gen::arbitrary<bool>();
  if (rows) sizes.back() = *rc::gen::inRange<int64_t>(4, 20);
  at::Tensor source = at::randint(-100, 100, sizes, at::kLong).to(dtype);
  // A permutation of the dims (of all but the last for rows).
  std::vector<int64_t> order(rank);
  std::iota(order.begin(), order.end(), 0);
  for (int64_t i = rank - (rows ? 2 : 1); i > 0; --i) {
    std::swap(order[i], order[*rc::gen::inRange<int64_t>(0, i + 1)]);
  }
  source = source.permute(order);
  // Every other element along some dim, or an expanded dim of one element.
  const int64_t dim = *rc::gen::inRange<int64_t>(0, rank);
  switch (*rc::gen::inRange(0, 3)) {
    case 1:
      source = source.slice(dim, 0, source.size(dim), 2);
      break;
    case 2:
      if (source.size(dim) > 0) {
        std::vector<int64_t> expanded = source.sizes().vec();
        source = source.narrow(dim, 0, 1).expand(expanded);
      }
      break;
    default:
      break;
  }
  const at::Tensor expected = source.contiguous();
  at::Tensor target = at::full(source.sizes(), 7, at::TensorOptions().dtype(dtype));
  const at::Tensor untouched = target.clone();
  const bool copied = CopyRows(source, target);
  RC_TAG(copied ? "copied" : "declined");
  if (copied) {
    RC_ASSERT(SameBytes(target, expected));
  } else {
    RC_ASSERT(SameBytes(target, untouched));
  }
}

TEST(RowCopy, TakesAChannelShuffleAndAttentionHeads) {
  c10::InferenceMode inference;
  // shufflenet: [1, 232, 8, 8] in two groups, swapped.
  const at::Tensor image = at::randn({1, 232, 8, 8});
  const at::Tensor shuffled = image.view({1, 2, 116, 8, 8}).transpose(1, 2);
  at::Tensor target = at::empty(shuffled.sizes());
  ASSERT_TRUE(CopyRows(shuffled, target));
  EXPECT_TRUE(SameBytes(target, shuffled.contiguous()));
  // [B, T, heads, D] -> [B, heads, T, D], D = 32.
  const at::Tensor heads = at::randn({2, 13, 4, 32}).transpose(1, 2);
  target = at::empty(heads.sizes());
  ASSERT_TRUE(CopyRows(heads, target));
  EXPECT_TRUE(SameBytes(target, heads.contiguous()));
}

TEST(RowCopy, DeclinesShortRowsAndStridedInnermostElements) {
  c10::InferenceMode inference;
  at::Tensor target = at::empty({16, 4});
  EXPECT_FALSE(CopyRows(at::randn({4, 16}).t(), target));  // rows of one element
  target = at::empty({3, 4});
  EXPECT_FALSE(CopyRows(at::randn({3, 8}).narrow(1, 0, 4), target));  // rows of 16 bytes
}

}  // namespace
}  // namespace static_runtime
