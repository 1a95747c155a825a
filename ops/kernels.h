// Every kernel the runtime binds nodes to, from one table: each op family's
// package adds its kernels from one function (ops/<family>/kernels.h), and
// KernelFamilies() lists those functions. Nothing registers at static
// initialization: the runtime's registry is built from the table on first
// use.
#ifndef STATIC_RUNTIME_OPS_KERNELS_H_
#define STATIC_RUNTIME_OPS_KERNELS_H_

#include "absl/types/span.h"
#include "ops/core/registry.h"

namespace static_runtime {

struct KernelFamily {
  const char* name;  // its package: ops/<name>
  void (*add_kernels)(KernelRegistry& registry);
};

// The op families, in the order their kernels are added.
absl::Span<const KernelFamily> KernelFamilies();

// Adds every family's kernels to `registry`.
void AddBuiltinKernels(KernelRegistry& registry);

// The registry the runtime looks nodes up in: every family's kernels, added
// on the first call (after the static_runtime:: operators are registered
// with the JIT, whose schemas the kernels name). Kernels from outside ops/
// (a test's, a user's) are added to it with Add before the models that use
// them are loaded.
KernelRegistry& GlobalKernels();

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_KERNELS_H_
