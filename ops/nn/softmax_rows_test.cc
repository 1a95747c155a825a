// ops::SoftmaxRowsForThisCpu against at::softmax over the last dimension,
// bit for bit (NaNs by position), on rows of random lengths holding
// infinities, NaN, zeros, huge and tiny values, in and out of place and on
// two threads.
#include "ops/nn/softmax_rows.h"

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

// `rows` rows of `n` values: most spread over [-scale, scale], some special.
at::Tensor Rows(int64_t rows, int64_t n, float scale) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<float> special = {nan, 0.f, -0.f, inf, -inf, -inf, 1e30f, -1e30f, 1e-40f};
  at::Tensor x = at::empty({rows, n}, at::kFloat);
  float* data = x.data_ptr<float>();
  const bool with_special = *rc::gen::inRange(0, 4) == 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    data[i] = with_special && *rc::gen::inRange(0, 8) == 0
                  ? *rc::gen::elementOf(special)
                  : static_cast<float>(*rc::gen::inRange(-10000, 10000)) / 10000.f * scale;
  }
  return x;
}

SoftmaxRowsFn KernelOrSkip() { return SoftmaxRowsForThisCpu(); }

TEST(SoftmaxRowsTest, MatchesAtenBitForBit) {
  const SoftmaxRowsFn kernel = KernelOrSkip();
  if (kernel == nullptr) GTEST_SKIP() << "ATen's own softmax is the fastest exact one here";
  const bool ok = rc::check([kernel] {
    const int64_t rows = *rc::gen::inRange(1, 6);
    const int64_t n = *rc::gen::inRange(1, 300);
    const float scale = *rc::gen::elementOf(std::vector<float>{1.f, 10.f, 100.f});
    const at::Tensor x = Rows(rows, n, scale);
    const at::Tensor aten = x.softmax(-1);
    at::Tensor ours = at::empty_like(x);
    kernel(x.data_ptr<float>(), ours.data_ptr<float>(), rows, n);
    RC_ASSERT(SameBitsOrBothNan(ours, aten));
    at::Tensor in_place = x.clone();
    kernel(in_place.data_ptr<float>(), in_place.data_ptr<float>(), rows, n);
    RC_ASSERT(SameBitsOrBothNan(in_place, aten));
  });
  EXPECT_TRUE(ok);
}

TEST(SoftmaxRowsTest, ManyRowsOnTwoThreadsMatchAten) {
  const SoftmaxRowsFn kernel = KernelOrSkip();
  if (kernel == nullptr) GTEST_SKIP() << "ATen's own softmax is the fastest exact one here";
  const int threads = at::get_num_threads();
  at::set_num_threads(2);
  const at::Tensor x = at::randn({4000, 77}) * 8;
  at::Tensor ours = at::empty_like(x);
  kernel(x.data_ptr<float>(), ours.data_ptr<float>(), x.size(0), x.size(1));
  at::set_num_threads(threads);
  EXPECT_TRUE(at::equal(ours, x.softmax(-1)));
}

// The kernel is chosen where it can gain: on AVX-512 CPUs whose ATen runs
// its AVX2 kernels (Debian's LibTorch does, unless ATEN_CPU_CAPABILITY caps
// it lower), as ATen's configuration says.
TEST(SoftmaxRowsTest, IsChosenWhereAtenRunsAvx2OnAnAvx512Cpu) {
  const bool aten_avx2 =
      at::show_config().find("CPU capability usage: AVX2\n") != std::string::npos;
  EXPECT_EQ(KernelOrSkip() != nullptr, CpuRunsAvx512() && aten_avx2) << at::show_config();
}

}  // namespace
}  // namespace ops
}  // namespace static_runtime
