// Per-call cost of out-variant kernels against the JIT fallback (the JIT's own
// operator on a stack) for common ops on small tensors (8x16), and for
// the pools of resnet18, shufflenet_v2 and densenet121 and a DLRM's batched
// matrix product, one thread.
// Each benchmark alternates the two on the same node and inputs and reports
// both means and the ratio out_ns / fallback_ns.
//
//   bazel run //ops:ops_benchmark
#include <chrono>
#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "benchmark/benchmark.h"
#include "c10/core/InferenceMode.h"
#include "glog/logging.h"
#include "load/load.h"
#include "ops/core/fallback.h"
#include "ops/core/registry.h"
#include "ops/kernels.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

struct Case {
  const char* name;
  const char* ir;  // one non-constant node; every graph input is a tensor
  std::vector<std::vector<int64_t>> input_shapes;
};

// A 3x3/2 max pool of the channels-last form of the image.
constexpr char kChannelsLastMaxPool[] = R"IR(graph(%a : Tensor):
  %channels_last : int = prim::Constant[value=2]()
  %k : int[] = prim::Constant[value=[3, 3]]()
  %s : int[] = prim::Constant[value=[2, 2]]()
  %p : int[] = prim::Constant[value=[1, 1]]()
  %d : int[] = prim::Constant[value=[1, 1]]()
  %false : bool = prim::Constant[value=0]()
  %x : Tensor = aten::contiguous(%a, %channels_last)
  %c : Tensor = aten::max_pool2d(%x, %k, %s, %p, %d, %false)
  return (%c))IR";

const std::vector<Case>& Cases() {
  static const auto* const kCases = new std::vector<Case>{
      {"add",
       R"IR(graph(%a : Tensor, %b : Tensor):
  %one : int = prim::Constant[value=1]()
  %c : Tensor = aten::add(%a, %b, %one)
  return (%c))IR",
       {{8, 16}, {8, 16}}},
      {"mul",
       R"IR(graph(%a : Tensor, %b : Tensor):
  %c : Tensor = aten::mul(%a, %b)
  return (%c))IR",
       {{8, 16}, {8, 16}}},
      {"relu",
       R"IR(graph(%a : Tensor):
  %c : Tensor = aten::relu(%a)
  return (%c))IR",
       {{8, 16}}},
      {"sigmoid",
       R"IR(graph(%a : Tensor):
  %c : Tensor = aten::sigmoid(%a)
  return (%c))IR",
       {{8, 16}}},
      {"tanh",
       R"IR(graph(%a : Tensor):
  %c : Tensor = aten::tanh(%a)
  return (%c))IR",
       {{8, 16}}},
      {"gelu",
       R"IR(graph(%a : Tensor):
  %none : str = prim::Constant[value="none"]()
  %c : Tensor = aten::gelu(%a, %none)
  return (%c))IR",
       {{8, 16}}},
      {"mm",
       R"IR(graph(%a : Tensor, %b : Tensor):
  %c : Tensor = aten::mm(%a, %b)
  return (%c))IR",
       {{8, 16}, {16, 8}}},
      {"linear",
       R"IR(graph(%a : Tensor, %w : Tensor, %b : Tensor):
  %c : Tensor = aten::linear(%a, %w, %b)
  return (%c))IR",
       {{8, 16}, {16, 16}, {16}}},
      {"softmax",
       R"IR(graph(%a : Tensor):
  %dim : int = prim::Constant[value=1]()
  %none : NoneType = prim::Constant()
  %c : Tensor = aten::softmax(%a, %dim, %none)
  return (%c))IR",
       {{8, 16}}},
      {"sum_dim",
       R"IR(graph(%a : Tensor):
  %dims : int[] = prim::Constant[value=[1]]()
  %keep : bool = prim::Constant[value=0]()
  %none : NoneType = prim::Constant()
  %c : Tensor = aten::sum(%a, %dims, %keep, %none)
  return (%c))IR",
       {{8, 16}}},
      {"cat",
       R"IR(graph(%a : Tensor, %b : Tensor):
  %dim : int = prim::Constant[value=1]()
  %list : Tensor[] = prim::ListConstruct(%a, %b)
  %c : Tensor = aten::cat(%list, %dim)
  return (%c))IR",
       {{8, 16}, {8, 16}}},
      {"layer_norm",
       R"IR(graph(%a : Tensor, %w : Tensor, %b : Tensor):
  %shape : int[] = prim::Constant[value=[16]]()
  %eps : float = prim::Constant[value=1.0000000000000001e-05]()
  %cudnn : bool = prim::Constant[value=1]()
  %c : Tensor = aten::layer_norm(%a, %shape, %w, %b, %eps, %cudnn)
  return (%c))IR",
       {{8, 16}, {16}, {16}}},
      {"where",
       R"IR(graph(%a : Tensor, %b : Tensor):
  %zero : int = prim::Constant[value=0]()
  %cond : Tensor = aten::gt(%a, %zero)
  %c : Tensor = aten::where(%cond, %a, %b)
  return (%c))IR",
       {{8, 16}, {8, 16}}},
      // resnet18's max pool, on the channels-last image our convolutions
      // give it, and on an NCHW one.
      {"max_pool2d_nhwc_64x112x112", kChannelsLastMaxPool, {{1, 64, 112, 112}}},
      // shufflenet_v2's, with fewer channels than a vector register pair.
      {"max_pool2d_nhwc_24x112x112", kChannelsLastMaxPool, {{1, 24, 112, 112}}},
      {"max_pool2d_nchw_64x112x112",
       R"IR(graph(%a : Tensor):
  %k : int[] = prim::Constant[value=[3, 3]]()
  %s : int[] = prim::Constant[value=[2, 2]]()
  %p : int[] = prim::Constant[value=[1, 1]]()
  %d : int[] = prim::Constant[value=[1, 1]]()
  %false : bool = prim::Constant[value=0]()
  %c : Tensor = aten::max_pool2d(%a, %k, %s, %p, %d, %false)
  return (%c))IR",
       {{1, 64, 112, 112}}},
      // densenet121's first transition's average pool, NCHW.
      {"avg_pool2d_nchw_256x56x56",
       R"IR(graph(%a : Tensor):
  %k : int[] = prim::Constant[value=[2, 2]]()
  %p : int[] = prim::Constant[value=[0, 0]]()
  %false : bool = prim::Constant[value=0]()
  %true : bool = prim::Constant[value=1]()
  %none : NoneType = prim::Constant()
  %c : Tensor = aten::avg_pool2d(%a, %k, %k, %p, %false, %true, %none)
  return (%c))IR",
       {{1, 256, 56, 56}}},
      // A DLRM's interaction: 16 products of 5 x 16 by 16 x 5.
      {"bmm_dlrm_interaction",
       R"IR(graph(%a : Tensor):
  %one : int = prim::Constant[value=1]()
  %two : int = prim::Constant[value=2]()
  %t : Tensor = aten::transpose(%a, %one, %two)
  %c : Tensor = aten::bmm(%a, %t)
  return (%c))IR",
       {{16, 5, 16}}},
  };
  return *kCases;
}

// The last node of the graph with its inputs in value slots.
struct Bench {
  std::shared_ptr<torch::jit::Graph> graph;
  const torch::jit::Node* node = nullptr;
  std::vector<c10::IValue> values;
  std::vector<ValueIndex> inputs;
  std::vector<ValueIndex> outputs;
};

Bench MakeBench(const Case& c) {
  Bench bench;
  absl::StatusOr<std::shared_ptr<torch::jit::Graph>> graph = ParseGraphIR(c.ir);
  CHECK(graph.ok()) << graph.status();
  bench.graph = *graph;
  std::unordered_map<const torch::jit::Value*, c10::IValue> known;
  for (size_t i = 0; i < bench.graph->inputs().size(); ++i) {
    known[bench.graph->inputs()[i]] = at::randn(c.input_shapes[i]);
  }
  for (const torch::jit::Node* node : bench.graph->nodes()) {
    bench.node = node;
    if (node->kind() == c10::prim::Constant) {
      known[node->output()] = *torch::jit::toIValue(node->output());
    }
  }
  // Nodes before the last one are evaluated once, by the JIT.
  for (const torch::jit::Node* node : bench.graph->nodes()) {
    if (node == bench.node || node->kind() == c10::prim::Constant) continue;
    torch::jit::Stack stack;
    for (const torch::jit::Value* input : node->inputs()) stack.push_back(known.at(input));
    absl::StatusOr<Kernel> kernel = MakeFallbackKernel(node);
    CHECK(kernel.ok()) << kernel.status();
    std::vector<c10::IValue> values(stack.begin(), stack.end());
    values.emplace_back();
    std::vector<ValueIndex> in(stack.size());
    for (size_t i = 0; i < in.size(); ++i) in[i] = i;
    const ValueIndex out = stack.size();
    NodeIO io(values.data(), in, absl::MakeConstSpan(&out, 1));
    (*kernel)(io);
    known[node->output()] = values.back();
  }
  for (const torch::jit::Value* input : bench.node->inputs()) {
    bench.inputs.push_back(bench.values.size());
    bench.values.push_back(known.at(input));
  }
  for (size_t i = 0; i < bench.node->outputs().size(); ++i) {
    bench.outputs.push_back(bench.values.size());
    bench.values.emplace_back();
  }
  return bench;
}

void BM_OutVsFallback(benchmark::State& state, const Case& c) {
  // As the runtime runs nodes (the kernels' direct paths need it).
  c10::InferenceMode inference_mode;
  Bench bench = MakeBench(c);
  auto out_variant = GlobalKernels().Find(bench.node, /*allow_out_variants=*/true);
  CHECK(out_variant.has_value() && out_variant->kind == NodeKind::kOutVariant) << c.name;
  absl::StatusOr<Kernel> fallback = MakeFallbackKernel(bench.node);
  CHECK(fallback.ok()) << fallback.status();
  // Separate output slots, so the fallback's fresh results never feed reuse.
  std::vector<c10::IValue> fallback_values = bench.values;
  NodeIO out_io(bench.values.data(), bench.inputs, bench.outputs);
  NodeIO fallback_io(fallback_values.data(), bench.inputs, bench.outputs);
  using Clock = std::chrono::steady_clock;
  Clock::duration out_time{0};
  Clock::duration fallback_time{0};
  for (auto _ : state) {
    const auto start = Clock::now();
    out_variant->kernel(out_io);
    const auto middle = Clock::now();
    (*fallback)(fallback_io);
    fallback_io.Output(0) = c10::IValue();  // the runtime drops it too
    const auto end = Clock::now();
    out_time += middle - start;
    fallback_time += end - middle;
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["out_ns"] = std::chrono::duration<double, std::nano>(out_time).count() / n;
  state.counters["fallback_ns"] =
      std::chrono::duration<double, std::nano>(fallback_time).count() / n;
  state.counters["ratio"] = std::chrono::duration<double>(out_time).count() /
                            std::chrono::duration<double>(fallback_time).count();
}

const bool kRegistered = [] {
  for (const Case& c : Cases()) {
    benchmark::RegisterBenchmark((std::string("BM_OutVsFallback/") + c.name).c_str(),
                                 BM_OutVsFallback, c);
  }
  return true;
}();

}  // namespace
}  // namespace static_runtime
