// The kernels of ops/attention/nested_padding.cc against ATen's ops on
// random batches, masks (left-aligned or with gaps, empty sequences) and
// dtypes: the same nested sizes and the same bits, the same boolean, or
// ATen's error; to_padded_tensor writes into its output slot again.
#include <optional>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/NestedTensorImpl.h"
#include "gtest/gtest.h"
#include "ops/core/out_variant_test_support.h"
#include "ops/core/registry.h"
#include "ops/kernels.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace {

using testing::Draw;
using testing::Slots;

// The kernel of `kind` registered for `op` on `inputs`, in `slots`: "" or
// the error.
std::string RunKernel(const std::string& op, NodeKind kind, const std::vector<c10::IValue>& inputs,
                      Slots& slots) {
  testing::SingleNode single = testing::MakeNode(op, "", inputs, 1);
  const std::optional<KernelRegistry::Selected> selected =
      GlobalKernels().Find(single.node, /*allow_out_variants=*/true);
  if (!selected || selected->kind != kind) return "no kernel of the expected kind for " + op;
  return slots.Run(selected->kernel, inputs);
}

// ATen's error for `op`, or "".
template <typename Op>
std::string AtenError(Op&& op) {
  try {
    op();
  } catch (const c10::Error& e) {
    return e.what_without_backtrace();
  }
  return "";
}

bool SameNested(const at::Tensor& expected, const at::Tensor& actual) {
  return actual.is_nested() && actual.scalar_type() == expected.scalar_type() &&
         at::equal(at::native::get_nested_size_tensor(expected),
                   at::native::get_nested_size_tensor(actual)) &&
         at::equal(expected.to_padded_tensor(0), actual.to_padded_tensor(0));
}

// A [batch, tokens] mask: each row a prefix of trues of a random length
// (maybe 0), or random bits.
at::Tensor DrawMask(Draw& d, int64_t batch, int64_t tokens) {
  if (d.Int(0, 3) == 0) return at::rand({batch, tokens}) > 0.5;
  at::Tensor mask = at::zeros({batch, tokens}, at::kBool);
  for (int64_t b = 0; b < batch; ++b) mask[b].narrow(0, 0, d.Int(0, tokens)).fill_(true);
  return mask;
}

RC_GTEST_PROP(NestedPadding, FromMaskLeftAlignedAndToPaddedEqualAten, ()) {
  at::manual_seed(*rc::gen::inRange(0, 1 << 20));
  Draw d;
  const int64_t batch = d.Int(1, 4), tokens = d.Int(1, 10), width = d.Int(1, 6);
  const at::ScalarType dtype = d.Bool() ? at::kFloat : at::kDouble;
  const at::Tensor t = d.Tensor({batch, tokens, width}, dtype);
  const at::Tensor mask = DrawMask(d, batch, tokens);
  const bool mask_check = d.Bool();

  Slots aligned(1);
  RC_ASSERT(RunKernel("aten::_nested_tensor_from_mask_left_aligned", NodeKind::kNative, {t, mask},
                      aligned) == "");
  RC_ASSERT(aligned.Output(0).toBool() == at::_nested_tensor_from_mask_left_aligned(t, mask));

  Slots nested(1);
  const std::string error =
      RunKernel("aten::_nested_tensor_from_mask", NodeKind::kNative, {t, mask, mask_check}, nested);
  at::Tensor expected;
  const std::string aten_error =
      AtenError([&] { expected = at::_nested_tensor_from_mask(t, mask, mask_check); });
  if (!aten_error.empty()) {
    RC_ASSERT(error.find(aten_error.substr(0, 40)) != std::string::npos);
    return;
  }
  RC_ASSERT(error == "");
  RC_ASSERT(SameNested(expected, nested.Output(0).toTensor()));

  // Back to a padded tensor, twice: the second call writes into the first's
  // output.
  const double padding = d.OneOf<double>({0.0, -1.5, 1e30});
  Slots padded(1);
  const void* before = nullptr;
  for (int call = 0; call < 2; ++call) {
    RC_ASSERT(RunKernel("aten::to_padded_tensor", NodeKind::kOutVariant,
                        {expected, padding, c10::IValue()}, padded) == "");
    const at::Tensor& actual = padded.Output(0).toTensor();
    RC_ASSERT(testing::Difference(expected.to_padded_tensor(padding), actual) == "");
    const bool reused = before == nullptr || actual.data_ptr() == before;
    RC_ASSERT(reused);
    before = actual.data_ptr();
  }
}

// Arguments the kernels do not take run ATen's op: its error for a mask
// that is not boolean or not of the input's size, its result for an
// output size.
TEST(NestedPaddingTest, LeavesOtherArgumentsToAten) {
  const at::Tensor t = at::randn({2, 3, 4});
  for (const at::Tensor& mask : {at::ones({2, 3}, at::kInt), at::ones({2, 4}, at::kBool)}) {
    const std::string aten_error = AtenError([&] { at::_nested_tensor_from_mask(t, mask, true); });
    ASSERT_FALSE(aten_error.empty());
    Slots slots(1);
    EXPECT_NE(RunKernel("aten::_nested_tensor_from_mask", NodeKind::kNative, {t, mask, true}, slots)
                  .find(aten_error.substr(0, 30)),
              std::string::npos);
  }
  const at::Tensor nested = at::_nested_tensor_from_mask(
      t, at::tensor({1, 1, 0, 1, 0, 0}).to(at::kBool).view({2, 3}), true);
  const std::vector<int64_t> size = {2, 5, 6};
  Slots slots(1);
  ASSERT_EQ(RunKernel("aten::to_padded_tensor", NodeKind::kOutVariant,
                      {nested, 2.0, c10::IValue(size)}, slots),
            "");
  EXPECT_EQ(testing::Difference(nested.to_padded_tensor(2.0, size), slots.Output(0)), "");
}

}  // namespace
}  // namespace static_runtime
