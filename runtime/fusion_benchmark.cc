// Pointwise fusion against the same runtime without it: chains of 10
// elementwise ops on float tensors of each size, the two runtimes
// interleaved in one benchmark (one intra-op thread); reports both means and
// their ratio (fused / unfused). One chain is arithmetic and clamps, the
// other has three ops that call a vector math function (sigmoid, tanh,
// exp; the same Sleef calls ATen makes), whose cost no fusion removes:
// BM_ChainEvaluator times the fused kernel's evaluator alone on each chain.
//
//   bazel run //runtime:fusion_benchmark
#include <chrono>
#include <vector>

#include "ATen/ATen.h"
#include "benchmark/benchmark.h"
#include "glog/logging.h"
#include "load/load.h"
#include "ops/pointwise_eval.h"
#include "runtime/static_runtime.h"

namespace static_runtime {
namespace {

constexpr char kMathChain[] = R"(
def forward(self, x, y):
    a = x + y
    b = torch.relu(a)
    c = b * 0.5
    d = torch.sigmoid(c)
    e = d - x
    f = torch.tanh(e)
    g = f * y
    h = torch.clamp(g, -1.0, 1.0)
    i = h + a
    return torch.exp(i)
)";

constexpr char kArithmeticChain[] = R"(
def forward(self, x, y):
    a = x + y
    b = torch.relu(a)
    c = b * 0.5
    d = c - x
    e = torch.abs(d)
    f = e * y
    g = torch.clamp(f, -1.0, 1.0)
    h = g + a
    i = torch.hardswish(h)
    return torch.leaky_relu(i, 0.125)
)";

StaticModule::Ptr Prepare(const torch::jit::Module& module, bool fusion) {
  Options options;
  options.enable_fusion = fusion;
  absl::StatusOr<StaticModule::Ptr> prepared =
      StaticModule::FromModule(module, /*is_frozen=*/false, options);
  CHECK(prepared.ok()) << prepared.status();
  return *prepared;
}

// Arguments: the chain (0 arithmetic, 1 math), rows, columns.
void ChainSizes(benchmark::internal::Benchmark* benchmark) {
  benchmark->ArgNames({"math", "rows", "cols"});
  for (int64_t size : {0, 1}) {
    for (int64_t math : {0, 1}) {
      benchmark->Args({math, size ? 1024 : 8, size ? 1024 : 16});
    }
  }
}

void BM_ChainFusedVsUnfused(benchmark::State& state) {
  absl::StatusOr<torch::jit::Module> module =
      ModuleFromSource(state.range(0) == 0 ? kArithmeticChain : kMathChain);
  CHECK(module.ok()) << module.status();
  StaticRuntime fused(Prepare(*module, true));
  StaticRuntime unfused(Prepare(*module, false));
  const std::vector<c10::IValue> inputs = {at::randn({state.range(1), state.range(2)}),
                                           at::randn({state.range(1), state.range(2)})};
  using Clock = std::chrono::steady_clock;
  Clock::duration fused_time{0};
  Clock::duration unfused_time{0};
  for (auto _ : state) {
    const auto start = Clock::now();
    benchmark::DoNotOptimize(fused.Run(inputs));
    const auto middle = Clock::now();
    benchmark::DoNotOptimize(unfused.Run(inputs));
    const auto end = Clock::now();
    fused_time += middle - start;
    unfused_time += end - middle;
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["fused_us"] =
      std::chrono::duration<double, std::micro>(fused_time).count() / iterations;
  state.counters["unfused_us"] =
      std::chrono::duration<double, std::micro>(unfused_time).count() / iterations;
  state.counters["ratio"] = std::chrono::duration<double>(fused_time).count() /
                            std::chrono::duration<double>(unfused_time).count();
}
BENCHMARK(BM_ChainFusedVsUnfused)->Apply(ChainSizes);

// A chain's program on rows x cols elements, evaluated alone: the floor of
// the fused node's time. Arguments: the chain (0 arithmetic, 1 math), rows,
// columns.
void BM_ChainEvaluator(benchmark::State& state) {
  const ops::PointwiseEvaluator& evaluator = ops::PointwiseEvaluatorForThisCpu();
  CHECK(evaluator.range != nullptr);
  ops::PointwiseProgram program;
  program.num_inputs = 3;  // x, y, 0.5
  auto add = [&](PointwiseOp op, int32_t a, int32_t b, float lo = -1.f, float hi = 1.f) {
    ops::PointwiseInstruction instruction;
    instruction.op = op;
    instruction.a = a;
    instruction.b = b;
    instruction.lo = lo;
    instruction.hi = hi;
    instruction.vector_tail = evaluator.vector_tail[static_cast<int>(op)];
    program.code.push_back(instruction);
  };
  add(PointwiseOp::kAdd, 0, 1);   // 3 a
  add(PointwiseOp::kRelu, 3, 3);  // 4 b
  add(PointwiseOp::kMul, 4, 2);   // 5 c
  if (state.range(0) == 0) {
    add(PointwiseOp::kSub, 5, 0);                  // 6 d
    add(PointwiseOp::kAbs, 6, 6);                  // 7 e
    add(PointwiseOp::kMul, 7, 1);                  // 8 f
    add(PointwiseOp::kClamp, 8, 8);                // 9 g
    add(PointwiseOp::kAdd, 9, 3);                  // 10 h
    add(PointwiseOp::kHardswish, 10, 10);          // 11 i
    add(PointwiseOp::kLeakyRelu, 11, 11, 0.125f);  // 12
  } else {
    add(PointwiseOp::kSigmoid, 5, 5);  // 6 d
    add(PointwiseOp::kSub, 6, 0);      // 7 e
    add(PointwiseOp::kTanh, 7, 7);     // 8 f
    add(PointwiseOp::kMul, 8, 1);      // 9 g
    add(PointwiseOp::kClamp, 9, 9);    // 10 h
    add(PointwiseOp::kAdd, 10, 3);     // 11 i
    add(PointwiseOp::kExp, 11, 11);    // 12
  }
  const int64_t numel = state.range(1) * state.range(2);
  const at::Tensor x = at::randn({numel});
  const at::Tensor y = at::randn({numel});
  at::Tensor out = at::empty({numel});
  const ops::PointwiseInput inputs[3] = {ops::ContiguousFloats(x.data_ptr<float>()),
                                         ops::ContiguousFloats(y.data_ptr<float>()),
                                         ops::Number(0.5f)};
  std::vector<void*> outputs(program.code.size(), nullptr);
  outputs.back() = out.data_ptr<float>();
  for (auto _ : state) {
    evaluator.range(program, inputs, outputs.data(), 0, numel);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_ChainEvaluator)->Apply(ChainSizes);

}  // namespace
}  // namespace static_runtime
