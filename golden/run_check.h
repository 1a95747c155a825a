// One differential run, as the differential harness (golden/differential_test)
// and the random graph property (fuzz/random_graph_test) do it: the JIT
// interpreter runs the module on a deep copy of the inputs, the static runtime
// runs on the inputs themselves, and the run is OK only if the whole outputs
// match (reference::Compare), the runtime left its inputs unmodified and,
// after ReleaseOutputs, holds no value. The error names the first problem.
#ifndef STATIC_RUNTIME_GOLDEN_RUN_CHECK_H_
#define STATIC_RUNTIME_GOLDEN_RUN_CHECK_H_

#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/status.h"
#include "runtime/static_runtime.h"
#include "torch/csrc/jit/api/module.h"

namespace static_runtime {
namespace golden {

enum class WhenTheJitRaises {
  kFail,          // the model must run
  kExpectAnError,  // the static runtime must return an error too
};

absl::Status CheckRunAgainstJit(torch::jit::Module& module, StaticRuntime& runtime,
                                const std::vector<c10::IValue>& inputs,
                                WhenTheJitRaises when_the_jit_raises);

}  // namespace golden
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_GOLDEN_RUN_CHECK_H_
