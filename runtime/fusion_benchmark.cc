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
#include "ir/operators/operators.h"
#include "load/load.h"
#include "ops/elementwise/pointwise_compile.h"
#include "ops/elementwise/pointwise_eval.h"
#include "runtime/static_runtime.h"
#include "torch/csrc/jit/ir/constants.h"

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

// The chain: 0 arithmetic, 1 math.
torch::jit::Module Chain(int64_t math) {
  absl::StatusOr<torch::jit::Module> module =
      ModuleFromSource(math ? kMathChain : kArithmeticChain);
  CHECK(module.ok()) << module.status();
  return *module;
}

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
  const torch::jit::Module module = Chain(state.range(0));
  StaticRuntime fused(Prepare(module, /*fusion=*/true));
  StaticRuntime unfused(Prepare(module, /*fusion=*/false));
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

// A chain's fused group compiled as the fused kernel compiles it, evaluated
// alone on rows x cols elements: the floor of the fused node's time.
// Arguments: the chain (0 arithmetic, 1 math), rows, columns.
void BM_ChainEvaluator(benchmark::State& state) {
  const ops::PointwiseEvaluator& evaluator = ops::PointwiseEvaluatorForThisCpu();
  CHECK(evaluator.range != nullptr);
  const StaticModule::Ptr module = Prepare(Chain(state.range(0)), /*fusion=*/true);
  const torch::jit::Graph& graph = *module->graph();
  const torch::jit::Node* fused = nullptr;
  for (const torch::jit::Node* node : graph.nodes()) {
    if (node->kind() == ops::kFusedPointwise) fused = node;
  }
  CHECK(fused != nullptr) << "the chain was not fused";
  std::vector<int32_t> output_of_instruction;
  const c10::optional<ops::PointwiseProgram> program =
      ops::CompilePointwiseGroup(fused, evaluator, &output_of_instruction);
  CHECK(program.has_value()) << "the chain's group does not compile on this CPU";

  // The group's inputs: the chain's tensor inputs (x and y), and numbers.
  const int64_t numel = state.range(1) * state.range(2);
  std::vector<at::Tensor> tensors;  // kept alive for the evaluator
  std::vector<ops::PointwiseInput> inputs;
  for (const torch::jit::Value* input : fused->inputs()) {
    if (const c10::optional<c10::IValue> constant = torch::jit::toIValue(input)) {
      inputs.push_back(ops::Number(constant->toScalar().to<float>()));
    } else {
      CHECK(input->node()->kind() == c10::prim::Param) << "a group input inside the graph";
      tensors.push_back(at::randn({numel}));
      inputs.push_back(ops::ContiguousFloats(tensors.back().data_ptr<float>()));
    }
  }
  std::vector<void*> outputs(program->code.size(), nullptr);
  for (size_t i = 0; i < outputs.size(); ++i) {
    if (output_of_instruction[i] < 0) continue;
    tensors.push_back(at::empty({numel}));
    outputs[i] = tensors.back().data_ptr<float>();
  }
  for (auto _ : state) {
    evaluator.range(*program, inputs.data(), outputs.data(), 0, numel);
    benchmark::ClobberMemory();
  }
}
BENCHMARK(BM_ChainEvaluator)->Apply(ChainSizes);

}  // namespace
}  // namespace static_runtime
