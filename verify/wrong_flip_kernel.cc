// A kernel wrong on purpose, for tests of the harness and of `sr verify`
// only (link it into a test; nothing includes it): aten::flip (which
// otherwise runs as a fallback) gives the flipped tensor plus one.
#include "ATen/ATen.h"
#include "ops/core/registry.h"

namespace static_runtime {
namespace {

const bool kRegistered = [] {
  RegisterNativeOverload("aten::flip", "", [](NodeIO& io) {
    io.Output(0) = at::flip(io.Input(0).toTensor(), io.Input(1).toIntVector()) + 1;
  });
  return true;
}();

}  // namespace
}  // namespace static_runtime
