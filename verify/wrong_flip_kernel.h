// A kernel wrong on purpose, for tests of the harness and of `sr verify`
// only: aten::flip (which otherwise runs as a fallback) gives the flipped
// tensor plus one. A test adds it to the registry its models are loaded
// with.
#ifndef STATIC_RUNTIME_VERIFY_WRONG_FLIP_KERNEL_H_
#define STATIC_RUNTIME_VERIFY_WRONG_FLIP_KERNEL_H_

#include "ops/core/registry.h"

namespace static_runtime {

void RegisterWrongFlipKernel(KernelRegistry& registry);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_VERIFY_WRONG_FLIP_KERNEL_H_
