// ops::Winograd3x3, both tiles (F(2x2, 3x3) and F(4x4, 3x3)), against a
// float64 convolution, within the bound conv2d_fused declares for Winograd
// shapes (ops::Conv2dFusedErrorBound):
// random channel counts (not multiples of the 8 lanes or the 16-channel
// panels included), batches, image sizes down to 1 x 1 (tiles
// cut by the edges), paddings on each side from 0 to 2, with and without a
// bias, on inputs with a few very large elements (a tile's error grows with
// its largest input); one object run from several threads at once.
#include "ops/conv/winograd_3x3.h"

#include <thread>
#include <vector>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "ops/conv/conv_error_bounds.h"
#include "ops/core/out_variant_test_support.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace {

using testing::Draw;

struct Case {
  at::Tensor weight;  // [K, C, 3, 3]
  c10::optional<at::Tensor> bias;
  int64_t top, bottom, left, right;  // padding
};

Case DrawCase(Draw& d) {
  Case c;
  const auto channels = [&d] { return d.Bool() ? d.Int(1, 48) : 8 * d.Int(1, 6); };
  c.weight = at::randn({channels(), channels(), 3, 3});
  if (d.Bool()) c.bias = at::randn({c.weight.size(0)});
  c.top = d.Int(0, 2);
  c.bottom = d.Int(0, 2);
  c.left = d.Int(0, 2);
  c.right = d.Int(0, 2);
  return c;
}

// NCHW, normal or with a few elements 10^4 times the rest.
at::Tensor DrawInput(Draw& d, const Case& c, int64_t height, int64_t width) {
  const at::Tensor x = at::randn({d.Int(1, 3), c.weight.size(1), height, width});
  return d.Bool() ? x : x * (1 + 1e4 * (at::rand(x.sizes()) < 0.01).to(at::kFloat));
}

// The kernel's result (NCHW view of its NHWC output) for `x` (NCHW).
at::Tensor RunKernel(const ops::Winograd3x3& kernel, const Case& c, const at::Tensor& x) {
  const at::Tensor nhwc = x.permute({0, 2, 3, 1}).contiguous();
  const ops::Winograd3x3Shape shape = {x.size(0),
                                       x.size(2),
                                       x.size(3),
                                       c.top,
                                       c.left,
                                       x.size(2) + c.top + c.bottom - 2,
                                       x.size(3) + c.left + c.right - 2};
  at::Tensor y =
      at::full({shape.batch, shape.out_height, shape.out_width, c.weight.size(0)}, std::nanf(""));
  kernel.Run(shape, nhwc.data_ptr<float>(), y.data_ptr<float>());
  return y.permute({0, 3, 1, 2});
}

ops::Winograd3x3 MakeKernel(const Case& c, int tile) {
  return ops::Winograd3x3(c.weight.data_ptr<float>(), c.bias ? c.bias->data_ptr<float>() : nullptr,
                          c.weight.size(0), c.weight.size(1), tile);
}

// "" when `actual` is within the declared bound of the exact convolution of
// `x` (its padding made explicit, so the bound sees the same windows).
std::string OutsideTheBound(const Case& c, const at::Tensor& x, const at::Tensor& actual) {
  const at::Tensor padded = at::constant_pad_nd(x, {c.left, c.right, c.top, c.bottom});
  const std::vector<int64_t> ones = {1, 1}, zeros = {0, 0};
  const std::vector<c10::IValue> inputs = {padded,
                                           c.weight,
                                           c.bias ? c10::IValue(*c.bias) : c10::IValue(),
                                           ones,
                                           zeros,
                                           ones,
                                           int64_t{1},
                                           c10::IValue(),
                                           std::string("none"),
                                           0.0,
                                           0.0};
  const at::Tensor exact =
      at::conv2d(padded.to(at::kDouble), c.weight.to(at::kDouble),
                 c.bias ? c10::optional<at::Tensor>(c.bias->to(at::kDouble)) : c10::nullopt);
  return testing::OutsideBound(ops::Conv2dFusedErrorBound, inputs, exact, actual);
}

RC_GTEST_PROP(Winograd3x3Property, WithinTheDeclaredBoundOfTheExactConvolution, ()) {
  if (!ops::Winograd3x3::Available()) return;  // nothing to run on this CPU
  at::manual_seed(*rc::gen::inRange(0, 1 << 20));
  Draw d;
  Case c = DrawCase(d);
  const int tile = d.Bool() ? 2 : 4;
  if (tile == 4 && c.weight.size(1) < ops::Winograd3x3::kMinTile4Channels) {
    c.weight = at::randn({c.weight.size(0), d.Int(ops::Winograd3x3::kMinTile4Channels, 48), 3, 3});
  }
  const ops::Winograd3x3 kernel = MakeKernel(c, tile);
  for (int call = 0; call < 3; ++call) {  // shapes change from call to call
    const int64_t height = d.Int(std::max<int64_t>(1, 3 - c.top - c.bottom), 30);
    const int64_t width = d.Int(std::max<int64_t>(1, 3 - c.left - c.right), 30);
    const at::Tensor x = DrawInput(d, c, height, width);
    const at::Tensor actual = RunKernel(kernel, c, x);
    const std::string outside = OutsideTheBound(c, x, actual);
    if (!outside.empty()) {
      RC_FAIL(c10::str(outside, " tile ", tile, " weight ", c.weight.sizes(), " padding top ",
                       c.top, " bottom ", c.bottom, " left ", c.left, " right ", c.right, " input ",
                       x.sizes()));
    }
  }
}

TEST(Winograd3x3, OneObjectFromSeveralThreadsAtOnce) {
  if (!ops::Winograd3x3::Available()) GTEST_SKIP() << "no AVX2 and FMA";
  at::manual_seed(7);
  const Case c = {at::randn({37, 21, 3, 3}), at::randn({37}), 1, 1, 1, 1};
  // Each thread its own tile and image size (its own chunking and buffers).
  const ops::Winograd3x3 kernels[2] = {MakeKernel(c, 2), MakeKernel(c, 4)};
  std::vector<at::Tensor> inputs, alone, together(4);
  for (int64_t i = 0; i < 4; ++i) {
    inputs.push_back(at::randn({2, 21, 9 + 5 * i, 30 - 4 * i}));
    alone.push_back(RunKernel(kernels[i % 2], c, inputs.back()));
  }
  std::vector<std::thread> threads;
  for (int64_t i = 0; i < 4; ++i) {
    threads.emplace_back([&, i] {
      for (int repeat = 0; repeat < 20; ++repeat) {
        together[i] = RunKernel(kernels[i % 2], c, inputs[i]);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int64_t i = 0; i < 4; ++i) EXPECT_TRUE(at::equal(alone[i], together[i])) << "thread " << i;
}

}  // namespace
}  // namespace static_runtime
