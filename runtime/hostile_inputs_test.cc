// Hostile tensors as inputs: sparse, quantized, mkldnn, meta, complex, half and
// bfloat16 where the model expects float, zero-size, expanded (overlapping
// memory), huge (results beyond memory), non-contiguous, inputs that alias
// each other, NaN and infinity. Each runs exactly as the JIT does, or, where
// the JIT fails, fails too with an error naming the failing node and its
// inputs (ResourceExhausted for memory, else InvalidArgument); never a crash
// or an internal error, and the runtime stays usable.
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "load/load.h"
#include "runtime/static_runtime.h"
#include "verify/reference.h"

namespace static_runtime {
namespace {

// Elementwise math (fused), a reduction, a matmul, a view and a cat.
constexpr char kModel[] = R"(
def forward(self, x, y):
    a = torch.relu(x * 2.0 + y)
    b = torch.sigmoid(a) - y
    c = torch.mm(b, y.t())
    d = torch.cat([a, b], 0).sum(1)
    return c, d, b.transpose(0, 1)
)";

struct HostileCase {
  const char* name;
  std::function<std::vector<c10::IValue>()> inputs;
};

std::vector<HostileCase> Cases() {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  auto x = [] { return at::randn({4, 4}); };
  return {
      {"sparse",
       [=] {
         return std::vector<c10::IValue>{x().to_sparse(), x()};
       }},
      {"quantized",
       [=] {
         return std::vector<c10::IValue>{at::quantize_per_tensor(x(), 0.1, 0, at::kQUInt8), x()};
       }},
      {"meta",
       [=] {
         return std::vector<c10::IValue>{at::empty({4, 4}, at::kMeta), x()};
       }},
      {"mkldnn layout",
       [=] {
         // Where LibTorch has no mkldnn tensors, a strided one stands in.
         return std::vector<c10::IValue>{at::hasMKLDNN() ? x().to_mkldnn() : x(), x()};
       }},
      {"complex",
       [=] {
         return std::vector<c10::IValue>{at::randn({4, 4}, at::kComplexFloat), x()};
       }},
      {"half",
       [=] {
         return std::vector<c10::IValue>{x().to(at::kHalf), x()};
       }},
      {"bfloat16",
       [=] {
         return std::vector<c10::IValue>{x().to(at::kBFloat16), x()};
       }},
      {"double",
       [=] {
         return std::vector<c10::IValue>{x().to(at::kDouble), x()};
       }},
      {"int64",
       [=] {
         return std::vector<c10::IValue>{at::randint(-5, 5, {4, 4}), x()};
       }},
      {"zero rows",
       [=] {
         return std::vector<c10::IValue>{at::randn({0, 4}), at::randn({0, 4})};
       }},
      {"mismatched shapes",
       [=] {
         return std::vector<c10::IValue>{at::randn({3, 5}), x()};
       }},
      {"expanded (overlapping)",
       [=] {
         return std::vector<c10::IValue>{at::randn({4}).expand({4, 4}), x()};
       }},
      {"transposed",
       [=] {
         return std::vector<c10::IValue>{x().t(), x()};
       }},
      {"one tensor twice",
       [=] {
         const at::Tensor same = x();
         return std::vector<c10::IValue>{same, same};
       }},
      {"NaN and infinity",
       [=] {
         at::Tensor t = x();
         t[0][0] = nan;
         t[1][1] = inf;
         t[2][2] = -inf;
         return std::vector<c10::IValue>{t, x()};
       }},
      {"0-dim",
       [=] {
         return std::vector<c10::IValue>{at::tensor(2.f), x()};
       }},
      {"huge (expanded, results of 4 TiB)",
       [=] {
         const at::Tensor huge = at::randn({1, 1}).expand({int64_t{1} << 20, int64_t{1} << 20});
         return std::vector<c10::IValue>{huge, huge};
       }},
  };
}

TEST(HostileInputsTest, RunAsTheJitOrFailWithAnErrorNamingTheNode) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(kModel);
  ASSERT_TRUE(module.ok()) << module.status();
  absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromModule(*module, false);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  StaticRuntime runtime(*prepared);
  const std::vector<c10::IValue> good = {at::randn({4, 4}), at::randn({4, 4})};
  int failed = 0, ran = 0;
  for (const HostileCase& c : Cases()) {
    SCOPED_TRACE(c.name);
    const std::vector<c10::IValue> inputs = c.inputs();
    c10::IValue expected;
    std::string jit_error;
    try {
      expected = module->forward(reference::DeepCopy(inputs));
    } catch (const std::exception& e) {
      jit_error = e.what();
    }
    absl::StatusOr<c10::IValue> actual = runtime.Run(inputs);
    if (!jit_error.empty()) {
      ++failed;
      ASSERT_FALSE(actual.ok()) << "the JIT failed: " << jit_error;
      // Memory the results would need, or what a kernel rejects.
      const bool memory = jit_error.find("allocate") != std::string::npos;
      EXPECT_EQ(actual.status().code(),
                memory ? absl::StatusCode::kResourceExhausted : absl::StatusCode::kInvalidArgument)
          << actual.status();
      EXPECT_THAT(std::string(actual.status().message()),
                  testing::AllOf(testing::HasSubstr("node "), testing::HasSubstr("inputs: (")));
    } else {
      ++ran;
      ASSERT_TRUE(actual.ok()) << actual.status();
      const absl::Status same = reference::Compare(expected, *actual);
      EXPECT_TRUE(same.ok()) << same;
    }
    EXPECT_EQ(runtime.NumHeldValues(), 0u);
    // Still usable, and right.
    absl::StatusOr<c10::IValue> after = runtime.Run(good);
    ASSERT_TRUE(after.ok()) << after.status();
    EXPECT_TRUE(reference::Compare(module->forward(reference::DeepCopy(good)), *after).ok());
  }
  // Both kinds occur.
  EXPECT_GE(failed, 4);
  EXPECT_GE(ran, 5);
}

}  // namespace
}  // namespace static_runtime
