// The fallback kernel: runs a node with the TorchScript JIT's own
// implementation. A node with a registered JIT operator calls that operator's
// Operation on a stack; a special node without one (tuple/dict construction,
// isinstance, ...) or one the interpreter runs as an instruction of its own
// (aten::warn without a source file, whose registered operator only throws)
// runs as a one-node graph on the JIT interpreter. Correct for every node the
// JIT can run on its own, but boxed: every input and output goes through a
// stack. The instructions the interpreter runs only inside their whole graph
// (prim::Enter/Exit, prim::fork, bail-outs, profiling) get no fallback.
#ifndef STATIC_RUNTIME_OPS_CORE_FALLBACK_H_
#define STATIC_RUNTIME_OPS_CORE_FALLBACK_H_

#include "absl/status/statusor.h"
#include "ops/core/registry.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// An error when the JIT cannot run `node` on its own (a node with blocks, or
// one the interpreter rejects).
absl::StatusOr<Kernel> MakeFallbackKernel(const torch::jit::Node* node);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CORE_FALLBACK_H_
