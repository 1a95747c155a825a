// The global average pool kernel this CPU chose (ops/nn/global_avg_pool.h)
// against at::mean over height and width, bit for bit (NaNs by position),
// on channels-last images of random counts, channels and sizes holding
// values of mixed magnitudes and special values; which kernel is chosen; the
// other split differing from ATen's; what GlobalAvgPoolInto declines.
#include "ops/nn/global_avg_pool.h"

#include <limits>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/Parallel.h"
#include "gtest/gtest.h"
#include "ops/core/cpu_isa.h"
#include "ops/nn/aten_order_test_support.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace ops {
namespace {

// A channels-last [n, c, h, w] image of values of mixed signs and
// magnitudes, some special.
at::Tensor Image(int64_t n, int64_t c, int64_t h, int64_t w) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> special = {nan, 0.f, -0.f, inf, -inf, 3e38f, -3e38f, 1e-40f};
  at::Tensor x = at::empty({n, c, h, w}, at::kFloat);
  float* data = x.data_ptr<float>();
  const bool with_special = *rc::gen::inRange(0, 5) == 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    data[i] = with_special && *rc::gen::inRange(0, 50) == 0
                  ? *rc::gen::elementOf(special)
                  : std::ldexp(static_cast<float>(*rc::gen::inRange(-10000, 10000)) / 10000.f,
                               *rc::gen::inRange(-8, 9));
  }
  return x.contiguous(at::MemoryFormat::ChannelsLast);
}

// The candidate that should match ATen's sum: its vector width's split.
std::string ExpectedKernel() {
  const std::string config = at::show_config();
  if (config.find("CPU capability usage: AVX512\n") != std::string::npos) {
    return CpuRunsAvx512() ? "avx512" : "none";
  }
  if (config.find("CPU capability usage: AVX2\n") == std::string::npos) return "none";
  if (CpuRunsAvx512()) return "avx2 order on avx512";
  return CpuRunsAvx2() ? "avx2" : "none";
}

TEST(GlobalAvgPool, ChoosesTheKernelOfAtensVectorWidth) {
  EXPECT_EQ(GlobalAvgPoolForThisCpu().name, ExpectedKernel());
}

RC_GTEST_PROP(GlobalAvgPool, EqualsAtenMeanBitForBit, ()) {
  RC_PRE(GlobalAvgPoolForThisCpu().run != nullptr);
  const int64_t n = *rc::gen::inRange(1, 4);
  const int64_t c = *rc::gen::weightedOneOf<int64_t>(
      {{3, rc::gen::inRange<int64_t>(2, 80)}, {1, rc::gen::inRange<int64_t>(80, 300)}});
  const int64_t h = *rc::gen::inRange(1, 40), w = *rc::gen::inRange(1, 40);
  RC_PRE(h * w > 1);
  const at::Tensor x = Image(n, c, h, w);
  at::Tensor ours = at::full({n, c, 1, 1}, 7.f);
  // One intra-op thread: ATen splits large images across more (below).
  const int threads = at::get_num_threads();
  at::set_num_threads(1);
  const bool taken = GlobalAvgPoolInto(x, ours);
  const at::Tensor aten = at::mean(x, {-1, -2}, /*keepdim=*/true);
  at::set_num_threads(threads);
  RC_ASSERT(taken);
  RC_ASSERT(SameBitsOrBothNan(ours, aten));
}

TEST(GlobalAvgPool, TheOtherSplitDiffersFromAten) {
  // 40 channels: within whole groups of four 8-lane vectors (32), not of
  // four 16-lane ones (64), so the two splits sum channels 0-31 otherwise.
  const GlobalAvgPoolKernel& chosen = GlobalAvgPoolForThisCpu();
  if (chosen.run == nullptr) GTEST_SKIP() << "no kernel matches ATen on this CPU";
  const at::Generator generator = at::detail::createCPUGenerator(5);
  const at::Tensor x = (at::randn({1, 40, 300, 1}, generator) *
                        at::pow(2.0, at::randint(-8, 9, {1, 40, 300, 1}, generator)))
                           .contiguous(at::MemoryFormat::ChannelsLast);
  const at::Tensor aten = at::mean(x, {-1, -2}, /*keepdim=*/true);
  for (const GlobalAvgPoolKernel& candidate : GlobalAvgPoolCandidates()) {
    at::Tensor ours = at::empty({1, 40, 1, 1});
    candidate.run({x.data_ptr<float>(), ours.data_ptr<float>(), 1, 40, 300});
    const bool same_split =
        (std::string(candidate.name) == "avx512") == (std::string(chosen.name) == "avx512");
    EXPECT_EQ(SameBitsOrBothNan(ours, aten), same_split) << candidate.name;
  }
}

TEST(GlobalAvgPool, DeclinesWhatAtenSumsOtherwise) {
  at::Tensor out = at::full({2, 8, 1, 1}, 7.f);
  const at::Tensor image = at::randn({2, 8, 5, 5}).contiguous(at::MemoryFormat::ChannelsLast);
  EXPECT_FALSE(GlobalAvgPoolInto(image.contiguous(), out));  // NCHW: ATen's inner sum
  EXPECT_FALSE(GlobalAvgPoolInto(image.to(at::kDouble), out));
  at::Tensor one_position = at::full({2, 8, 1, 1}, 7.f);
  EXPECT_FALSE(GlobalAvgPoolInto(at::randn({2, 8, 1, 1}).contiguous(at::MemoryFormat::ChannelsLast),
                                 one_position));
  at::Tensor one_channel = at::full({2, 1, 1, 1}, 7.f);
  EXPECT_FALSE(GlobalAvgPoolInto(at::randn({2, 1, 5, 5}), one_channel));
  at::Tensor wrong_shape = at::full({2, 8}, 7.f);  // not empty: not resized
  EXPECT_FALSE(GlobalAvgPoolInto(image, wrong_shape));
  at::Tensor strided = at::full({8, 2, 1, 1}, 7.f).transpose(0, 1);
  EXPECT_FALSE(GlobalAvgPoolInto(image, strided));
  EXPECT_TRUE(at::equal(out, at::full({2, 8, 1, 1}, 7.f)));
  EXPECT_TRUE(at::equal(strided, at::full({2, 8, 1, 1}, 7.f)));
}

TEST(GlobalAvgPool, ResizesAnEmptyOutputAsAtensMeanOut) {
  if (GlobalAvgPoolForThisCpu().run == nullptr) GTEST_SKIP() << "no kernel on this CPU";
  const at::Tensor image = at::randn({3, 20, 5, 5}).contiguous(at::MemoryFormat::ChannelsLast);
  at::Tensor ours = at::empty({0});
  at::Tensor aten = at::empty({0});
  ASSERT_TRUE(GlobalAvgPoolInto(image, ours));
  at::mean_out(aten, image, {-1, -2}, /*keepdim=*/true);
  EXPECT_EQ(ours.sizes(), aten.sizes());
  EXPECT_EQ(ours.strides(), aten.strides());
  EXPECT_TRUE(SameBitsOrBothNan(ours, aten));
}

TEST(GlobalAvgPool, LeavesImagesAtenSplitsAcrossThreadsToAten) {
  if (GlobalAvgPoolForThisCpu().run == nullptr) GTEST_SKIP() << "no kernel on this CPU";
  const int threads = at::get_num_threads();
  at::set_num_threads(2);
  const at::Tensor large = at::randn({1, 64, 32, 32}).contiguous(at::MemoryFormat::ChannelsLast);
  const at::Tensor small = at::randn({1, 64, 4, 4}).contiguous(at::MemoryFormat::ChannelsLast);
  at::Tensor out = at::empty({1, 64, 1, 1});
  EXPECT_FALSE(GlobalAvgPoolInto(large, out));
  EXPECT_TRUE(GlobalAvgPoolInto(small, out));
  EXPECT_TRUE(SameBitsOrBothNan(out, at::mean(small, {-1, -2}, /*keepdim=*/true)));
  at::set_num_threads(threads);
}

}  // namespace
}  // namespace ops
}  // namespace static_runtime
