// Latency of the static runtime against the TorchScript JIT (the frozen
// module's forward, warmed up) on corpus models, one intra-op thread. For each
// model, BM_Interleaved alternates the two on the same inputs within one
// benchmark and reports both means and their ratio (static / JIT); the other
// two benchmarks time each side alone.
//
//   bazel run //runtime:runtime_benchmark
#include <chrono>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "glog/logging.h"
#include "passes/freeze.h"
#include "runtime/corpus_module.h"
#include "runtime/static_runtime.h"
#include "verify/corpus.h"

namespace static_runtime {
namespace {

constexpr const char* kModels[] = {
    "mlp",        "conv_bn_residual", "ads_ranking",   "attention_block", "lstm_cell_loop",
    "dict_input", "if_branch",        "scalar_outputs"};

struct Subject {
  torch::jit::Module jit;  // frozen, eval
  StaticModule::Ptr static_module;
  std::vector<c10::IValue> inputs;
};

Subject MakeSubject(const std::string& name) {
  absl::StatusOr<CorpusModule> prepared = PrepareCorpusModel(corpus::ModelNamed(name));
  CHECK(prepared.ok()) << prepared.status();
  absl::StatusOr<torch::jit::Module> frozen = FreezeForInference(prepared->module, "forward");
  CHECK(frozen.ok()) << frozen.status();
  corpus::InputRng rng(0);
  Subject subject{*frozen, prepared->static_module, prepared->model->inputs(rng, 2)};
  for (int i = 0; i < 10; ++i) subject.jit.forward(subject.inputs);  // profile + optimize
  return subject;
}

void BM_StaticRuntime(benchmark::State& state, const std::string& name) {
  Subject subject = MakeSubject(name);
  StaticRuntime runtime(subject.static_module);
  for (auto _ : state) {
    benchmark::DoNotOptimize(runtime.Run(subject.inputs));
  }
}

void BM_Jit(benchmark::State& state, const std::string& name) {
  Subject subject = MakeSubject(name);
  for (auto _ : state) {
    benchmark::DoNotOptimize(subject.jit.forward(subject.inputs));
  }
}

void BM_Interleaved(benchmark::State& state, const std::string& name) {
  Subject subject = MakeSubject(name);
  StaticRuntime runtime(subject.static_module);
  using Clock = std::chrono::steady_clock;
  Clock::duration ours{0};
  Clock::duration jit{0};
  for (auto _ : state) {
    const auto start = Clock::now();
    benchmark::DoNotOptimize(runtime.Run(subject.inputs));
    const auto middle = Clock::now();
    benchmark::DoNotOptimize(subject.jit.forward(subject.inputs));
    const auto end = Clock::now();
    ours += middle - start;
    jit += end - middle;
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["static_us"] =
      std::chrono::duration<double, std::micro>(ours).count() / iterations;
  state.counters["jit_us"] = std::chrono::duration<double, std::micro>(jit).count() / iterations;
  state.counters["ratio"] =
      std::chrono::duration<double>(ours).count() / std::chrono::duration<double>(jit).count();
  const KernelCounts& counts = subject.static_module->kernel_counts();
  state.counters["nodes_out"] = counts.out_variant;
  state.counters["nodes_native"] = counts.native;
  state.counters["nodes_fallback"] = counts.fallback;
}

const bool kRegistered = [] {
  for (const char* name : kModels) {
    benchmark::RegisterBenchmark((std::string("BM_Interleaved/") + name).c_str(), BM_Interleaved,
                                 std::string(name));
    benchmark::RegisterBenchmark((std::string("BM_StaticRuntime/") + name).c_str(),
                                 BM_StaticRuntime, std::string(name));
    benchmark::RegisterBenchmark((std::string("BM_Jit/") + name).c_str(), BM_Jit,
                                 std::string(name));
  }
  return true;
}();

}  // namespace
}  // namespace static_runtime
