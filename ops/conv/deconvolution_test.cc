// The oneDNN kernels of aten::conv_transpose1d and conv_transpose2d
// (ops/conv/deconvolution.cc) against a float64 reference, over
// random shapes (unbatched included), strides, padding, output padding,
// dilation, groups and biases, with output slots reused across calls and
// shapes; ATen's own float result must meet the same declared bound
// (ops/conv/conv_error_bounds.h), so the bound is not looser than it needs to be by
// construction. Also: what ATen rejects is rejected with ATen's message,
// other layouts run ATen's op, and one kernel (one set of pre-packed
// weights) runs from several threads at once.
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "ops/conv/conv_error_bounds.h"
#include "ops/core/out_variant_test_support.h"
#include "ops/kernels.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace {

using testing::Draw;
using testing::SingleNode;
using testing::Slots;

struct DeconvCase {
  int64_t dims = 2;   // spatial
  at::Tensor weight;  // [C, K / groups, ...]
  c10::optional<at::Tensor> bias;
  std::vector<int64_t> stride, padding, output_padding, dilation;
  int64_t groups = 1;
};

// A graph holding one conv_transpose node with `c`'s constants.
SingleNode MakeDeconvGraph(const DeconvCase& c) {
  return testing::MakeNodeOnConstants(
      GlobalKernels(), c.dims == 1 ? c10::aten::conv_transpose1d : c10::aten::conv_transpose2d,
      {c.weight, c.bias ? c10::IValue(*c.bias) : c10::IValue(), c.stride, c.padding,
       c.output_padding, c.groups, c.dilation});
}

at::Tensor Deconvolve(const DeconvCase& c, const at::Tensor& x, const at::Tensor& w,
                      const c10::optional<at::Tensor>& bias) {
  return c.dims == 1 ? at::conv_transpose1d(x, w, bias, c.stride, c.padding, c.output_padding,
                                            c.groups, c.dilation)
                     : at::conv_transpose2d(x, w, bias, c.stride, c.padding, c.output_padding,
                                            c.groups, c.dilation);
}

DeconvCase DrawCase(Draw& d) {
  DeconvCase c;
  c.dims = d.Int(1, 2);
  c.groups = d.Int(1, 3);
  const int64_t in_per_group = d.Int(1, 20), out_per_group = d.Int(1, 20);
  std::vector<int64_t> weight = {c.groups * in_per_group, out_per_group};
  for (int64_t i = 0; i < c.dims; ++i) {
    weight.push_back(d.Int(1, 5));
    c.stride.push_back(d.Int(1, 3));
    c.dilation.push_back(d.Int(1, 2));
    c.padding.push_back(d.Int(0, 2));
    c.output_padding.push_back(d.Int(0, std::max(c.stride.back(), c.dilation.back()) - 1));
  }
  c.weight = at::randn(weight);
  if (d.Bool()) c.bias = at::randn({c.groups * out_per_group});
  return c;
}

at::Tensor DrawInput(Draw& d, const DeconvCase& c) {
  std::vector<int64_t> sizes = {c.weight.size(0)};
  for (int64_t i = 0; i < c.dims; ++i) sizes.push_back(d.Int(1, c.dims == 1 ? 200 : 12));
  if (d.Int(0, 3) != 0) sizes.insert(sizes.begin(), d.Int(1, 2));  // else unbatched
  return at::randn(sizes);
}

RC_GTEST_PROP(DeconvolutionProperty, WithinTheStatedBoundAsAtenIs, ()) {
  at::manual_seed(*rc::gen::inRange(0, 1 << 20));
  Draw d;
  const DeconvCase c = DrawCase(d);
  SingleNode deconv = MakeDeconvGraph(c);
  Slots slots(1);
  // Several calls on one set of slots: shapes change, output tensors are reused.
  for (int call = 0; call < 3; ++call) {
    const at::Tensor x = DrawInput(d, c);
    const std::string failure = testing::CheckWeightedCall(
        ops::ConvTransposeErrorBound, deconv, slots, x, c.weight, c.bias,
        [&c](const at::Tensor& input, const at::Tensor& weight,
             const c10::optional<at::Tensor>& bias) { return Deconvolve(c, input, weight, bias); });
    if (!failure.empty()) {
      RC_FAIL(c10::str(failure, "; weight ", c.weight.sizes(), " stride ", c.stride, " padding ",
                       c.padding, " output padding ", c.output_padding, " dilation ", c.dilation,
                       " groups ", c.groups, " input ", x.sizes(), " call ", call));
    }
  }
}

DeconvCase AudioDecoderCase() {  // Conv-TasNet's decoder shape, smaller
  DeconvCase c;
  c.dims = 1;
  c.weight = at::randn({16, 4, 8});
  c.bias = at::randn({4});
  c.stride = {4};
  c.padding = {4};
  c.output_padding = {0};
  c.dilation = {1};
  return c;
}

TEST(DeconvolutionTest, RejectsWhatAtenRejectsWithAtensMessage) {
  const DeconvCase c = AudioDecoderCase();
  SingleNode deconv = MakeDeconvGraph(c);
  Slots slots(1);
  // 8 channels where the weight wants 16; a signal too short for a result.
  for (const at::Tensor& x : {at::randn({1, 8, 30}), at::randn({1, 16, 1})}) {
    EXPECT_EQ(testing::RejectsAsAten([&] { Deconvolve(c, x, c.weight, c.bias); }, slots,
                                     deconv.kernel, testing::InputsAfterConstants(deconv.node, x)),
              "");
  }
  // The kernel stays usable.
  EXPECT_EQ(
      slots.Run(deconv.kernel, testing::InputsAfterConstants(deconv.node, at::randn({1, 16, 30}))),
      "");
}

// A strided input and a double one run ATen's op: its result exactly.
TEST(DeconvolutionTest, OtherLayoutsAndDtypesRunAtensOp) {
  const DeconvCase c = AudioDecoderCase();
  SingleNode deconv = MakeDeconvGraph(c);
  Slots slots(1);
  const at::Tensor strided = at::randn({2, 16, 60}).slice(2, 0, c10::nullopt, 2);
  ASSERT_EQ(slots.Run(deconv.kernel, testing::InputsAfterConstants(deconv.node, strided)), "");
  EXPECT_TRUE(at::equal(slots.Output(0).toTensor(), Deconvolve(c, strided, c.weight, c.bias)));
  const at::Tensor dbl = at::randn({1, 16, 30}, at::kDouble);
  // ATen refuses a double input with float weights; so does the kernel.
  EXPECT_NE(slots.Run(deconv.kernel, testing::InputsAfterConstants(deconv.node, dbl)), "");
}

TEST(DeconvolutionTest, OneKernelRunsOnSeveralThreadsAtOnce) {
  const DeconvCase c = AudioDecoderCase();
  SingleNode deconv = MakeDeconvGraph(c);
  std::vector<std::vector<c10::IValue>> input_sets;
  for (const at::Tensor& x : {at::randn({1, 16, 50}), at::randn({2, 16, 7}), at::randn({16, 33}),
                              at::randn({3, 16, 100})}) {
    input_sets.push_back(testing::InputsAfterConstants(deconv.node, x));
  }
  const std::vector<std::string> failures =
      testing::SameResultsOnSeveralThreads(deconv.kernel, input_sets);
  for (size_t t = 0; t < input_sets.size(); ++t) EXPECT_EQ(failures[t], "") << "thread " << t;
}

}  // namespace
}  // namespace static_runtime
