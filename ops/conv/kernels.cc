#include "ops/conv/kernels.h"

namespace static_runtime {

// Each kernel file's part, defined there.
void RegisterConv2dKernels(KernelRegistry& registry);         // conv2d.cc
void RegisterConvolution3dKernels(KernelRegistry& registry);  // convolution3d.cc
void RegisterDeconvolutionKernels(KernelRegistry& registry);  // deconvolution.cc

void RegisterConvKernels(KernelRegistry& registry) {
  RegisterConv2dKernels(registry);
  RegisterConvolution3dKernels(registry);
  RegisterDeconvolutionKernels(registry);
}

}  // namespace static_runtime
