#include "ops/prim/kernels.h"

namespace static_runtime {

// Each kernel file's part, defined there.
void RegisterNativeContainersKernels(KernelRegistry& registry);  // native_containers.cc
void RegisterNativeMiscKernels(KernelRegistry& registry);        // native_misc.cc
void RegisterNativeObjectsKernels(KernelRegistry& registry);     // native_objects.cc
void RegisterNativeScalarsKernels(KernelRegistry& registry);     // native_scalars.cc
namespace ops {

void RegisterNativeAsyncKernels(KernelRegistry& registry);  // native_async.cc
}  // namespace ops

void RegisterPrimKernels(KernelRegistry& registry) {
  ops::RegisterNativeAsyncKernels(registry);
  RegisterNativeContainersKernels(registry);
  RegisterNativeMiscKernels(registry);
  RegisterNativeObjectsKernels(registry);
  RegisterNativeScalarsKernels(registry);
}

}  // namespace static_runtime
