#include "runtime/node_overhead.h"

#include <algorithm>
#include <chrono>
#include <vector>

#include "absl/strings/str_cat.h"
#include "errors/status_macros.h"
#include "runtime/module_state.h"
#include "runtime/plan.h"
#include "runtime/static_runtime.h"

namespace static_runtime {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kShortChain = 100;
constexpr int kLongChain = 1100;
constexpr int kRounds = 301;

std::string ChainIR(int nodes) {
  std::string ir = "graph(%x0 : int):\n  %one : int = prim::Constant[value=1]()\n";
  for (int i = 0; i < nodes; ++i) {
    absl::StrAppend(&ir, "  %x", i + 1, " : int = aten::add(%x", i, ", %one)\n");
  }
  absl::StrAppend(&ir, "  return (%x", nodes, ")\n");
  return ir;
}

double MedianNs(std::vector<double> samples) {
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

absl::StatusOr<NodeOverhead> MeasureNodeOverhead() {
  ASSIGN_OR_RETURN(StaticModule::Ptr short_chain, StaticModule::FromIR(ChainIR(kShortChain)));
  ASSIGN_OR_RETURN(StaticModule::Ptr long_chain, StaticModule::FromIR(ChainIR(kLongChain)));
  StaticRuntime short_runtime(short_chain);
  StaticRuntime long_runtime(long_chain);

  // Interleaved runs of both chains; the median of each.
  std::vector<double> short_ns;
  std::vector<double> long_ns;
  for (int round = 0; round < kRounds; ++round) {
    for (auto [runtime, samples] :
         {std::make_pair(&short_runtime, &short_ns), std::make_pair(&long_runtime, &long_ns)}) {
      const auto start = Clock::now();
      absl::StatusOr<c10::IValue> result = runtime->Run({c10::IValue(int64_t{0})});
      const auto end = Clock::now();
      RETURN_IF_ERROR(result.status());
      samples->push_back(std::chrono::duration<double, std::nano>(end - start).count());
    }
  }
  NodeOverhead overhead;
  overhead.slope_ns = (MedianNs(long_ns) - MedianNs(short_ns)) / (kLongChain - kShortChain);

  // The addition kernel alone, on a two-slot table, as the runner calls it.
  const NodePlan& node = ModuleState::Of(*short_chain).plan.nodes.front();
  std::vector<c10::IValue> values = {int64_t{0}, int64_t{1}, c10::IValue()};
  const ValueIndex inputs[] = {0, 1};
  const ValueIndex outputs[] = {2};
  NodeIO io(values.data(), inputs, outputs);
  std::vector<double> kernel_ns;
  constexpr int kCalls = 10000;
  for (int round = 0; round < 31; ++round) {
    const auto start = Clock::now();
    for (int i = 0; i < kCalls; ++i) node.kernel(io);
    kernel_ns.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count() /
                        kCalls);
  }
  overhead.kernel_ns = MedianNs(kernel_ns);
  overhead.per_node_ns = overhead.slope_ns - overhead.kernel_ns;
  return overhead;
}

}  // namespace static_runtime
