#include "ops/core/node_kind.h"

namespace static_runtime {

const char* NodeKindName(NodeKind kind) {
  switch (kind) {
    case NodeKind::kOutVariant:
      return "out_variant";
    case NodeKind::kNative:
      return "native";
    case NodeKind::kFallback:
      return "fallback";
    case NodeKind::kIf:
      return "control (If)";
    case NodeKind::kLoop:
      return "control (Loop)";
  }
  return "?";
}

}  // namespace static_runtime
