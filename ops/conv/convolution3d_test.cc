// The oneDNN kernel of aten::conv3d (ops/conv/convolution3d.cc) against a
// float64 reference, over random shapes (unbatched included), strides,
// padding (lists, "valid" and "same"), dilation, groups and biases, with
// output slots reused across calls and shapes; ATen's own float result must
// meet the same declared bound (ops/conv/conv_error_bounds.h), so the bound is not
// looser than it needs to be by construction. Also: what ATen rejects is
// rejected with ATen's message, other layouts and non-finite weights run
// ATen's op, and one kernel (one set of pre-packed weights) runs from
// several threads at once.
#include <limits>
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

struct Conv3dCase {
  at::Tensor weight;  // [K, C / groups, kd, kh, kw]
  c10::optional<at::Tensor> bias;
  std::vector<int64_t> stride, padding, dilation;
  std::string padding_mode;  // "valid" or "same" for the string overload, else ""
  int64_t groups = 1;
};

c10::IValue PaddingArgument(const Conv3dCase& c) {
  return c.padding_mode.empty() ? c10::IValue(c.padding) : c10::IValue(c.padding_mode);
}

// A graph holding one aten::conv3d node with `c`'s constants; `bound`
// says whether a kernel must have taken it.
SingleNode MakeConv3dGraph(const Conv3dCase& c, bool bound = true) {
  return testing::MakeNodeOnConstants(GlobalKernels(), c10::aten::conv3d,
                                      {c.weight, c.bias ? c10::IValue(*c.bias) : c10::IValue(),
                                       c.stride, PaddingArgument(c), c.dilation, c.groups},
                                      bound);
}

at::Tensor Convolve(const Conv3dCase& c, const at::Tensor& x, const at::Tensor& w,
                    const c10::optional<at::Tensor>& bias) {
  return c.padding_mode.empty()
             ? at::conv3d(x, w, bias, c.stride, c.padding, c.dilation, c.groups)
             : at::conv3d(x, w, bias, c.stride, c.padding_mode, c.dilation, c.groups);
}

Conv3dCase DrawCase(Draw& d) {
  Conv3dCase c;
  c.groups = d.Int(1, 3);
  const int64_t in_per_group = d.Int(1, 12), out_per_group = d.Int(1, 12);
  std::vector<int64_t> weight = {c.groups * out_per_group, in_per_group};
  for (int i = 0; i < 3; ++i) {
    weight.push_back(d.Int(1, 3));
    c.stride.push_back(d.Int(1, 2));
    c.dilation.push_back(d.Int(1, 2));
    c.padding.push_back(d.Int(0, 2));
  }
  // The string overload ("same" only with stride 1, as ATen requires).
  const int64_t mode = d.Int(0, 5);
  if (mode == 0) c.padding_mode = "valid";
  if (mode == 1) {
    c.padding_mode = "same";
    c.stride = {1, 1, 1};
  }
  c.weight = at::randn(weight);
  if (d.Bool()) c.bias = at::randn({c.groups * out_per_group});
  return c;
}

at::Tensor DrawInput(Draw& d, const Conv3dCase& c) {
  std::vector<int64_t> sizes = {c.weight.size(1) * c.groups};
  for (int i = 0; i < 3; ++i) sizes.push_back(d.Int(1, 9));
  if (d.Int(0, 3) != 0) sizes.insert(sizes.begin(), d.Int(1, 2));  // else unbatched
  return at::randn(sizes);
}

// Whether ATen pads `c`'s input before convolving ("same" with an odd total
// padding along a dimension), which the kernel leaves to ATen.
bool PadsTheInputFirst(const Conv3dCase& c) {
  if (c.padding_mode != "same") return false;
  for (int i = 0; i < 3; ++i) {
    if (c.dilation[i] * (c.weight.size(2 + i) - 1) % 2 != 0) return true;
  }
  return false;
}

// One call of `conv`'s kernel on `x` in `slots`, checked against ATen's
// conv3d within the declared bound (testing::CheckWeightedCall): "" or what
// failed, with the case.
std::string CheckCall(const Conv3dCase& c, const SingleNode& conv, Slots& slots,
                      const at::Tensor& x) {
  const std::string failure = testing::CheckWeightedCall(
      ops::Conv3dErrorBound, conv, slots, x, c.weight, c.bias,
      [&c](const at::Tensor& input, const at::Tensor& weight,
           const c10::optional<at::Tensor>& bias) { return Convolve(c, input, weight, bias); });
  if (failure.empty()) return "";
  return c10::str(failure, "; weight ", c.weight.sizes(), " stride ", c.stride, " padding ",
                  c.padding, " '", c.padding_mode, "' dilation ", c.dilation, " groups ", c.groups,
                  " input ", x.sizes());
}

RC_GTEST_PROP(Conv3dProperty, WithinTheStatedBoundAsAtenIs, ()) {
  at::manual_seed(*rc::gen::inRange(0, 1 << 20));
  Draw d;
  const Conv3dCase c = DrawCase(d);
  SingleNode conv = MakeConv3dGraph(c, /*bound=*/!PadsTheInputFirst(c));
  if (PadsTheInputFirst(c)) {
    RC_ASSERT(!conv.kernel);  // declined: the fallback runs ATen's op
    return;
  }
  Slots slots(1);
  // Several calls on one set of slots: shapes change, output tensors are reused.
  for (int call = 0; call < 3; ++call) {
    const std::string failure = CheckCall(c, conv, slots, DrawInput(d, c));
    if (!failure.empty()) RC_FAIL(c10::str(failure, " call ", call));
  }
}

// The spatial half of a factored (2+1)D convolution: 1 x 3 x 3, stride 1,
// mostly of 64 to 96 channels (which runs as a 2D Winograd convolution of
// each frame on AVX2 CPUs), on inputs with a few very large elements (a
// Winograd tile's error grows with its largest input).
RC_GTEST_PROP(Conv3dProperty, FactoredSpatialShapesWithinTheStatedBound, ()) {
  at::manual_seed(*rc::gen::inRange(0, 1 << 20));
  Draw d;
  Conv3dCase c;
  const auto channels = [&d] { return d.Int(0, 3) == 0 ? d.Int(1, 40) : d.Int(64, 100); };
  c.weight = at::randn({channels(), channels(), 1, 3, 3});
  if (d.Bool()) c.bias = at::randn({c.weight.size(0)});
  c.stride = c.dilation = {1, 1, 1};
  c.padding = {d.Int(0, 4) == 0 ? 1 : 0, d.Int(0, 2), d.Int(0, 2)};
  const int64_t mode = d.Int(0, 5);
  if (mode == 0) c.padding_mode = "valid";
  if (mode == 1) c.padding_mode = "same";
  SingleNode conv = MakeConv3dGraph(c);
  Slots slots(1);
  for (int call = 0; call < 3; ++call) {
    std::vector<int64_t> sizes = {c.weight.size(1), d.Int(1, 3), d.Int(1, 18), d.Int(1, 18)};
    if (d.Int(0, 3) != 0) sizes.insert(sizes.begin(), d.Int(1, 2));  // else unbatched
    at::Tensor x = at::randn(sizes);
    if (d.Bool()) x = x * (1 + 1e4 * (at::rand(x.sizes()) < 0.01).to(at::kFloat));
    const std::string failure = CheckCall(c, conv, slots, x);
    if (!failure.empty()) RC_FAIL(c10::str(failure, " call ", call));
  }
}

Conv3dCase VideoCase() {  // a residual block's 3 x 3 x 3 convolution, smaller
  Conv3dCase c;
  c.weight = at::randn({16, 8, 3, 3, 3});
  c.bias = at::randn({16});
  c.stride = {1, 2, 2};
  c.padding = {1, 1, 1};
  c.dilation = {1, 1, 1};
  return c;
}

TEST(Conv3dTest, RejectsWhatAtenRejectsWithAtensMessage) {
  const Conv3dCase c = VideoCase();
  SingleNode conv = MakeConv3dGraph(c);
  Slots slots(1);
  // 4 channels where the weight wants 8; a clip too small for the kernel.
  for (const at::Tensor& x : {at::randn({1, 4, 4, 8, 8}), at::randn({1, 8, 1, 1, 0})}) {
    EXPECT_EQ(testing::RejectsAsAten([&] { Convolve(c, x, c.weight, c.bias); }, slots, conv.kernel,
                                     testing::InputsAfterConstants(conv.node, x)),
              "");
  }
  // The kernel stays usable.
  EXPECT_EQ(
      slots.Run(conv.kernel, testing::InputsAfterConstants(conv.node, at::randn({1, 8, 4, 8, 8}))),
      "");
}

// A strided input and a channels-last one run ATen's op: its result exactly.
TEST(Conv3dTest, OtherLayoutsRunAtensOp) {
  const Conv3dCase c = VideoCase();
  SingleNode conv = MakeConv3dGraph(c);
  Slots slots(1);
  const at::Tensor strided = at::randn({2, 8, 4, 8, 16}).slice(4, 0, c10::nullopt, 2);
  const at::Tensor channels_last =
      at::randn({1, 8, 4, 8, 8}).contiguous(at::MemoryFormat::ChannelsLast3d);
  for (const at::Tensor& x : {strided, channels_last}) {
    ASSERT_EQ(slots.Run(conv.kernel, testing::InputsAfterConstants(conv.node, x)), "");
    EXPECT_TRUE(at::equal(slots.Output(0).toTensor(), Convolve(c, x, c.weight, c.bias)));
  }
}

// A weight holding inf or NaN: ATen's op, whose taps on the padding add
// 0 x inf = NaN (a kernel that skips the padding would not).
TEST(Conv3dTest, NonFiniteWeightsGiveAtensResult) {
  Conv3dCase c = VideoCase();
  c.weight[0][0][0][0][0] = std::numeric_limits<float>::infinity();
  c.weight[1][0][2][2][2] = std::numeric_limits<float>::quiet_NaN();
  SingleNode conv = MakeConv3dGraph(c, /*bound=*/false);
  ASSERT_FALSE(conv.kernel);  // declined: the fallback runs ATen's op
}

// Also a factored spatial convolution of 64 channels (on AVX2 CPUs a 2D
// Winograd one of each frame, through per-thread buffers).
TEST(Conv3dTest, OneKernelRunsOnSeveralThreadsAtOnce) {
  Conv3dCase spatial = VideoCase();
  spatial.weight = at::randn({64, 64, 1, 3, 3});
  spatial.bias = at::randn({64});
  spatial.stride = {1, 1, 1};
  spatial.padding = {0, 1, 1};
  for (const Conv3dCase& c : {VideoCase(), spatial}) {
    SingleNode conv = MakeConv3dGraph(c);
    const int64_t channels = c.weight.size(1);
    std::vector<std::vector<c10::IValue>> input_sets;
    for (const at::Tensor& x :
         {at::randn({1, channels, 4, 8, 8}), at::randn({2, channels, 3, 5, 7}),
          at::randn({channels, 4, 6, 6}), at::randn({1, channels, 8, 16, 16})}) {
      input_sets.push_back(testing::InputsAfterConstants(conv.node, x));
    }
    const std::vector<std::string> failures =
        testing::SameResultsOnSeveralThreads(conv.kernel, input_sets);
    for (size_t t = 0; t < input_sets.size(); ++t) {
      EXPECT_EQ(failures[t], "") << c.weight.sizes() << ", thread " << t;
    }
  }
}

}  // namespace
}  // namespace static_runtime
