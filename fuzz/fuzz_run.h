// What both libFuzzer targets do with a model once it is prepared: make small
// inputs from forward's schema and run it on the static runtime, twice (the
// second run is planned). Errors are expected and fine; a crash, a hang or a
// sanitizer report is a finding. Models that could run for an unbounded time
// (a loop whose trip count is not a small constant or an input) are prepared
// but not run.
#ifndef STATIC_RUNTIME_FUZZ_FUZZ_RUN_H_
#define STATIC_RUNTIME_FUZZ_FUZZ_RUN_H_

#include <optional>
#include <vector>

#include "ATen/core/ivalue.h"
#include "runtime/static_module.h"

namespace static_runtime {
namespace fuzz {

// Inputs for `schema`'s arguments (self excluded): tensors 2x3 float, ints 2,
// floats 0.5, bools true, lists and optionals of those; nullopt when an
// argument has a type without a small default value.
std::optional<std::vector<c10::IValue>> SmallInputs(const c10::FunctionSchema& schema);

// True when every loop of the prepared graph has a bounded trip count.
bool Bounded(torch::jit::Graph& graph);

// Runs `module` (if bounded and inputs can be made) and
// swallows its errors.
void RunPrepared(const StaticModule::Ptr& module);

}  // namespace fuzz
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_FUZZ_FUZZ_RUN_H_
