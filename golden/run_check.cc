#include "golden/run_check.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "golden/reference.h"

namespace static_runtime {
namespace golden {

absl::Status CheckRunAgainstJit(torch::jit::Module& module, StaticRuntime& runtime,
                                const std::vector<c10::IValue>& inputs,
                                WhenTheJitRaises when_the_jit_raises) {
  const c10::IValue before = reference::DeepCopy(c10::ivalue::Tuple::create(inputs));
  std::string jit_error;
  c10::IValue expected;
  try {
    expected = module.forward(reference::DeepCopy(inputs));
  } catch (const std::exception& error) {
    jit_error = error.what();
    jit_error = jit_error.substr(0, jit_error.find('\n'));
  }
  absl::StatusOr<c10::IValue> actual = runtime.Run(inputs);
  if (!jit_error.empty()) {
    if (when_the_jit_raises == WhenTheJitRaises::kFail) {
      return absl::InternalError(absl::StrCat("the JIT interpreter raised: ", jit_error));
    }
    if (actual.ok()) {
      return absl::InternalError(absl::StrCat("the JIT raised but the static runtime returned ",
                                              reference::Shapes(*actual), "; JIT: ", jit_error));
    }
  } else if (!actual.ok()) {
    return absl::InternalError(
        absl::StrCat("the static runtime failed: ", actual.status().message()));
  } else {
    absl::Status same = reference::Compare(expected, *actual);
    if (!same.ok()) return same;
  }
  if (!reference::ExactlyEqual(before, c10::ivalue::Tuple::create(inputs))) {
    return absl::InternalError("the run modified its inputs");
  }
  runtime.ReleaseOutputs();
  if (runtime.NumHeldValues() != 0) {
    return absl::InternalError(
        absl::StrCat(runtime.NumHeldValues(), " intermediates left over"));
  }
  return absl::OkStatus();
}

}  // namespace golden
}  // namespace static_runtime
