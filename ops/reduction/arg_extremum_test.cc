// ops::ArgExtremumOut against ATen's argmax and argmin, index for index: over
// random shapes, dims (negative too, or none), keepdim, every dtype it
// serves, with many ties (-0 and +0 among them), infinities and NaNs; into
// a result that is empty, of another shape or non-contiguous. And what it
// does not serve.
#include "ops/reduction/arg_extremum.h"

#include <cmath>
#include <limits>
#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace ops {
namespace {

// Values among few, so that ties are common; for floats also -0, the
// infinities and NaN.
at::Tensor DrawValues(const std::vector<int64_t>& sizes, at::ScalarType dtype) {
  int64_t numel = 1;
  for (const int64_t size : sizes) numel *= size;
  const std::vector<int> codes = *rc::gen::container<std::vector<int>>(
      numel, rc::gen::inRange(0, at::isFloatingType(dtype) ? 10 : 5));
  std::vector<double> values;
  for (const int code : codes) {
    switch (code) {
      case 5:
        values.push_back(-0.0);
        break;
      case 6:
        values.push_back(std::numeric_limits<double>::infinity());
        break;
      case 7:
        values.push_back(-std::numeric_limits<double>::infinity());
        break;
      case 8:
        values.push_back(std::numeric_limits<double>::quiet_NaN());
        break;
      case 9:
        values.push_back(*rc::gen::inRange(-1000, 1000) / 7.0);
        break;
      default:
        values.push_back(code);
    }
  }
  return at::tensor(values, at::kDouble).reshape(sizes).to(dtype);
}

RC_GTEST_PROP(ArgExtremumTest, SameIndicesAsAten, ()) {
  const auto dtype = *rc::gen::element(at::kFloat, at::kDouble, at::kLong, at::kInt, at::kByte);
  const int64_t rank = *rc::gen::inRange<int64_t>(1, 5);
  const std::vector<int64_t> sizes =
      *rc::gen::container<std::vector<int64_t>>(rank, rc::gen::inRange<int64_t>(1, 7));
  const at::Tensor self = DrawValues(sizes, dtype);
  c10::optional<int64_t> dim;
  if (*rc::gen::inRange(0, 4) != 0) dim = *rc::gen::inRange<int64_t>(-rank, rank);
  const bool keepdim = *rc::gen::arbitrary<bool>();
  const bool is_max = *rc::gen::arbitrary<bool>();
  RC_ASSERT(ArgExtremumServes(self, dim));

  const at::Tensor expected =
      is_max ? at::argmax(self, dim, keepdim) : at::argmin(self, dim, keepdim);
  at::Tensor out;
  switch (*rc::gen::inRange(0, 3)) {
    case 0:
      out = at::empty({0}, at::kLong);
      break;
    case 1:
      out = at::full({3, 5}, -1, at::kLong);
      break;
    default:  // the expected shape, transposed: not contiguous where it matters
      out = at::full(expected.sizes(), -1, at::kLong);
      if (out.dim() >= 2) {
        out = at::full(expected.transpose(0, -1).sizes(), -1, at::kLong).transpose(0, -1);
      }
  }
  ArgExtremumOut(self, dim, keepdim, is_max, out);
  RC_ASSERT(out.sizes() == expected.sizes());
  RC_ASSERT(at::equal(out, expected));
}

TEST(ArgExtremumTest, LongLinesAndWideInnerDimensions) {
  for (const int64_t dim : {0, 1, -1}) {
    const at::Tensor self = at::randn({64, 500}).round();
    for (const bool is_max : {true, false}) {
      at::Tensor out = at::empty({0}, at::kLong);
      ArgExtremumOut(self, dim, false, is_max, out);
      EXPECT_TRUE(at::equal(out, is_max ? at::argmax(self, dim) : at::argmin(self, dim))) << dim;
    }
  }
}

TEST(ArgExtremumTest, LeavesToAtenWhatItDoesNotServe) {
  EXPECT_FALSE(ArgExtremumServes(at::ones({}), c10::nullopt));        // no dimension
  EXPECT_FALSE(ArgExtremumServes(at::ones({0, 3}), int64_t{1}));      // no elements
  EXPECT_FALSE(ArgExtremumServes(at::ones({4, 3}).t(), int64_t{1}));  // not contiguous
  EXPECT_FALSE(ArgExtremumServes(at::ones({4, 3}, at::kHalf), 0));    // a dtype it has no scan for
  EXPECT_FALSE(ArgExtremumServes(at::ones({4, 3}), int64_t{2}));      // a dim out of range
  EXPECT_FALSE(ArgExtremumServes(at::ones({4, 3}), int64_t{-3}));
  EXPECT_FALSE(ArgExtremumServes(at::ones({kArgExtremumMaxElements + 1}), 0));  // ATen's threads
  EXPECT_TRUE(ArgExtremumServes(at::ones({kArgExtremumMaxElements}), 0));
}

}  // namespace
}  // namespace ops
}  // namespace static_runtime
