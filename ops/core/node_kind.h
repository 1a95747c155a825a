// NodeKind: what a node of a prepared graph runs as. A kernel declares one of
// the first three when it registers (ops/core/registry.h: out variant or native;
// fallbacks are the JIT's own operators, never registered); If and Loop are
// the control flow the runtime runs itself. The one enum the registry, the
// plan, the run loop and the public API (NodeDescription) share.
#ifndef STATIC_RUNTIME_OPS_CORE_NODE_KIND_H_
#define STATIC_RUNTIME_OPS_CORE_NODE_KIND_H_

#include <cstdint>

namespace static_runtime {

enum class NodeKind : uint8_t {
  kOutVariant,  // writes into an output tensor the runtime owns and reuses
  kNative,      // the runtime's own kernel: computes directly on the slots
  kFallback,    // the JIT's own operator (or interpreter) on a stack
  kIf,          // prim::If: runs one of its blocks
  kLoop,        // prim::Loop: runs its body
};

// If or Loop: control flow the runtime runs itself, not a kernel.
inline bool IsControlFlow(NodeKind kind) {
  return kind == NodeKind::kIf || kind == NodeKind::kLoop;
}

// "out_variant", "native", "fallback", "control (If)", "control (Loop)".
const char* NodeKindName(NodeKind kind);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CORE_NODE_KIND_H_
