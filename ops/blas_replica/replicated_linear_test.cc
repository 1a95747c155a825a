// ReplicatedLinear gives ATen's addmm / mm bits on random shapes (both sides
// of OpenBLAS's small-matrix limits and its k blocks), biases, row strides
// and row counts, whichever order this process's BLAS proves (on other
// BLAS cores: ATen's own call); falls back for operands it does not take;
// and, under OpenBLAS's SkylakeX or Cooperlake kernels on an AVX-512 CPU
// (the CPU matrix's skylakex entry), replicates both of their orders, and
// under its Haswell or Zen kernels (its haswell and zen entries) the Chain,
// paired and not.
#include "ops/blas_replica/replicated_linear.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "ops/blas_replica/sgemm_orders.h"
#include "rapidcheck.h"
#include "rapidcheck/gtest.h"

namespace static_runtime {
namespace {

using ops::ReplicatedLinear;
using Order = ReplicatedLinear::Order;

at::Tensor Aten(const at::Tensor& x, const at::Tensor& weight, const at::Tensor& bias) {
  return bias.defined() ? at::addmm(bias, x, weight.t()) : at::mm(x, weight.t());
}

bool SameBits(const at::Tensor& a, const at::Tensor& b) {
  return a.sizes() == b.sizes() &&
         std::memcmp(a.data_ptr<float>(), b.data_ptr<float>(), a.numel() * sizeof(float)) == 0;
}

RC_GTEST_PROP(ReplicatedLinearProperty, SameBitsAsAten, ()) {
  const int64_t rows = *rc::gen::inRange<int64_t>(1, 9);
  const int64_t n = *rc::gen::weightedOneOf<int64_t>(
      {{2, rc::gen::inRange<int64_t>(1, 200)}, {1, rc::gen::inRange<int64_t>(200, 1100)}});
  const int64_t k = *rc::gen::weightedOneOf<int64_t>(
      {{2, rc::gen::inRange<int64_t>(1, 300)}, {1, rc::gen::inRange<int64_t>(300, 800)}});
  const bool has_bias = *rc::gen::arbitrary<bool>();
  const at::Tensor weight = at::randn({n, k});
  const at::Tensor bias = has_bias ? at::randn({n}) : at::Tensor();
  const int64_t padding = *rc::gen::element<int64_t>(0, 0, 3);
  const at::Tensor x = at::randn({rows, k + padding}).narrow(1, 0, k);
  const ReplicatedLinear linear(weight, bias);
  const Order order = linear.OrderFor(rows);
  RC_LOG() << rows << " x " << k << " -> " << n << (has_bias ? " with" : " without")
           << " a bias, order " << static_cast<int>(order) << "\n";
  RC_CLASSIFY(order == Order::kChain, "chain");
  RC_CLASSIFY(order == Order::kChain && rows >= 4 && linear.PairedRowsFor(rows) > 0,
              "chain with paired rows");
  RC_CLASSIFY(order == Order::kLaneTree, "lane tree");
  at::Tensor y = at::empty({rows, n});
  linear.Run(x, y);
  RC_ASSERT(SameBits(Aten(x, weight, bias), y));
}

TEST(ReplicatedLinear, TakesAtensCallForOperandsItDoesNotReplicate) {
  const at::Tensor weight = at::randn({40, 24}), bias = at::randn({40});
  const ReplicatedLinear linear(weight, bias);
  const at::Tensor columns = at::randn({24, 5}).t();  // rows not contiguous
  at::Tensor y = at::empty({5, 40});
  linear.Run(columns, y);
  EXPECT_TRUE(SameBits(Aten(columns, weight, bias), y));
  // An output not contiguous: ATen's addmm_out into the same layout (whose
  // products BLAS may sum otherwise than into a contiguous one).
  const at::Tensor x = at::randn({5, 24});
  at::Tensor transposed_y = at::empty({40, 5}).t();
  linear.Run(x, transposed_y);
  at::Tensor expected = at::empty({40, 5}).t();
  at::addmm_out(expected, bias, x, weight.t());
  EXPECT_TRUE(at::equal(expected, transposed_y));
}

TEST(ReplicatedLinear, TakesAtensCallForWeightsLaidOutOtherwise) {
  const at::Tensor x = at::randn({6, 40});
  const at::Tensor transposed = at::randn({40, 96}).t(), bias = at::randn({96});
  const ReplicatedLinear linear(transposed, bias);
  EXPECT_EQ(linear.OrderFor(6), Order::kAten);
  at::Tensor y = at::empty({6, 96});
  linear.Run(x, y);
  EXPECT_TRUE(SameBits(Aten(x, transposed, bias), y));
  const at::Tensor strided_bias = at::randn({192}).slice(0, 0, 192, 2);
  const at::Tensor weight = at::randn({96, 40});
  EXPECT_EQ(ReplicatedLinear(weight, strided_bias).OrderFor(6), Order::kAten);
}

// One output column (an LSTM projected to one value) is ATen's call on
// every CPU: OpenBLAS may sum it by another kernel than its GEMM blocks.
TEST(ReplicatedLinear, TakesAtensCallForOneOutputColumn) {
  const at::Tensor x = at::randn({1, 52}), weight = at::randn({1, 52});
  const ReplicatedLinear linear(weight, at::Tensor());
  EXPECT_EQ(linear.OrderFor(1), Order::kAten);
  at::Tensor y = at::empty({1, 1});
  linear.Run(x, y);
  EXPECT_TRUE(SameBits(Aten(x, weight, at::Tensor()), y));
}

TEST(ReplicatedLinear, RejectsMismatchedWeights) {
  EXPECT_THROW(ReplicatedLinear(at::randn({8, 4}), at::randn({5})), c10::Error);
  EXPECT_THROW(ReplicatedLinear(at::randn({8}), at::Tensor()), c10::Error);
  EXPECT_THROW(ReplicatedLinear(at::randn({8, 4}, at::kDouble), at::Tensor()), c10::Error);
}

// Where OpenBLAS runs its AVX-512 kernels, both orders are proved for the
// shapes recurrent networks give them: a GRU's 4 x 128 -> 384 step (its
// level-3 path, one block of k), a long k (three blocks) and an nn.RNN's
// 4 x 128 -> 128 and 1 x 256 -> 256 steps (its small-matrix kernel).
TEST(ReplicatedLinear, ReplicatesOpenBlasSkylakeXKernels) {
  const char* core = std::getenv("OPENBLAS_CORETYPE");
  const char* threads = std::getenv("OPENBLAS_NUM_THREADS");
  const std::string name = core != nullptr ? core : "";
  if ((name != "SkylakeX" && name != "Cooperlake") || threads == nullptr ||
      std::string(threads) != "1") {
    GTEST_SKIP() << "OpenBLAS here is not SkylakeX's or Cooperlake's kernels on one thread "
                 << "(OPENBLAS_CORETYPE '" << name
                 << "'); the CPU matrix's skylakex entry runs this";
  }
  ASSERT_TRUE(ops::blas_replica::LaneTreeAvailable()) << "OpenBLAS runs AVX-512 kernels here";
  EXPECT_EQ(ReplicatedLinear(at::randn({384, 128}), at::randn({384})).OrderFor(4), Order::kChain);
  EXPECT_EQ(ReplicatedLinear(at::randn({512, 700}), at::Tensor()).OrderFor(6), Order::kChain);
  EXPECT_EQ(ReplicatedLinear(at::randn({128, 128}), at::randn({128})).OrderFor(4),
            Order::kLaneTree);
  EXPECT_EQ(ReplicatedLinear(at::randn({256, 256}), at::Tensor()).OrderFor(1), Order::kLaneTree);
}

// Where OpenBLAS runs its Haswell kernels (its Haswell and Zen cores, on an
// AVX2 CPU or a later one), the Chain is proved for the step products of
// recurrent networks: unpaired for fewer than 4 rows (an nn.RNN's 1 x 256
// -> 256 step, a packed sequence's last rows), with the full 4-row tiles
// paired for more (a GRU's 4 x 128 -> 384 step, an LSTM's 6 x 128 -> 512
// with two rows past its tile).
TEST(ReplicatedLinear, ReplicatesOpenBlasHaswellKernels) {
  const char* core = std::getenv("OPENBLAS_CORETYPE");
  const char* threads = std::getenv("OPENBLAS_NUM_THREADS");
  const std::string name = core != nullptr ? core : "";
  if ((name != "Haswell" && name != "Zen") || threads == nullptr || std::string(threads) != "1") {
    GTEST_SKIP() << "OpenBLAS here is not Haswell's or Zen's kernels on one thread "
                 << "(OPENBLAS_CORETYPE '" << name
                 << "'); the CPU matrix's haswell and zen entries run this";
  }
  ASSERT_TRUE(ops::blas_replica::ChainAvailable()) << "OpenBLAS runs AVX2 kernels here";
  const ReplicatedLinear rnn(at::randn({256, 256}), at::randn({256}));
  EXPECT_EQ(rnn.OrderFor(1), Order::kChain);
  EXPECT_EQ(rnn.PairedRowsFor(1), 0);
  const ReplicatedLinear gru(at::randn({384, 128}), at::randn({384}));
  EXPECT_EQ(gru.OrderFor(4), Order::kChain);
  EXPECT_EQ(gru.PairedRowsFor(4), 4);
  const ReplicatedLinear lstm(at::randn({512, 128}), at::Tensor());
  EXPECT_EQ(lstm.OrderFor(6), Order::kChain);
  EXPECT_EQ(lstm.PairedRowsFor(6), 4);
}

}  // namespace
}  // namespace static_runtime
