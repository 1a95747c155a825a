// aten::batch_norm's out-variant kernel (ops/nn/out_batch_norm.cc) on two
// intra-op threads: inputs large enough for ATen's parallel_for to split
// them, in both layouts the kernel computes, give ATen's bits.
#include <vector>

#include "ATen/ATen.h"
#include "ATen/Parallel.h"
#include "gtest/gtest.h"
#include "ops/core/out_variant_test_support.h"
#include "ops/nn/kernels.h"

namespace static_runtime {
namespace {

TEST(OutBatchNormTest, TwoThreadsGiveAtensBits) {
  KernelRegistry registry;
  RegisterNnKernels(registry);
  const int threads = at::get_num_threads();
  at::set_num_threads(2);
  const at::Tensor weight = at::randn({37});
  const at::Tensor bias = at::randn({37});
  const at::Tensor mean = at::randn({37});
  const at::Tensor var = at::rand({37}) + 0.5;
  const at::Tensor x = at::randn({2, 37, 48, 48});
  for (const at::Tensor& input : {x, x.contiguous(at::MemoryFormat::ChannelsLast)}) {
    const std::vector<c10::IValue> inputs = {input, weight, bias, mean, var,
                                             false, 0.1,    1e-5, false};
    testing::SingleNode single = testing::MakeNode("aten::batch_norm", "", inputs, 1);
    single = testing::BindOutVariant(registry, single.graph, single.node);
    testing::Slots slots(1);
    ASSERT_EQ(slots.Run(single.kernel, inputs), "");
    const at::Tensor expected =
        at::batch_norm(input, weight, bias, mean, var, false, 0.1, 1e-5, false);
    EXPECT_TRUE(at::equal(slots.Output(0).toTensor(), expected))
        << (input.is_contiguous() ? "contiguous" : "channels-last");
  }
  at::set_num_threads(threads);
}

}  // namespace
}  // namespace static_runtime
