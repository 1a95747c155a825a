// FreezeForInference: torch.jit.freeze in C++, the one freezing path of the
// project (preparation, and the JIT baseline `sr bench` compares with). A
// frozen copy of `module` in eval mode: its parameters and attributes folded
// into `method_name`'s graph as constants, then what torch.jit.freeze does
// after freezing (OptimizeFrozenGraph: drop dropout and, with
// `optimize_numerics` as torch.jit.freeze's argument of that name, fold
// batch norm and add/mul constants into convolutions and linears, which
// changes the last bits of results). `module` is not changed.
// InvalidArgument naming what LibTorch could not freeze.
#ifndef STATIC_RUNTIME_PASSES_FREEZE_H_
#define STATIC_RUNTIME_PASSES_FREEZE_H_

#include <string>

#include "absl/status/statusor.h"
#include "torch/csrc/jit/api/module.h"

namespace static_runtime {

absl::StatusOr<torch::jit::Module> FreezeForInference(const torch::jit::Module& module,
                                                      const std::string& method_name,
                                                      bool optimize_numerics = true);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_FREEZE_H_
