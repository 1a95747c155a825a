#include "verify/wrong_flip_kernel.h"

#include "ATen/ATen.h"

namespace static_runtime {

void RegisterWrongFlipKernel(KernelRegistry& registry) {
  registry.Add(Native("aten::flip", "", [](NodeIO& io) {
    io.Output(0) = at::flip(io.Input(0).toTensor(), io.Input(1).toIntVector()) + 1;
  }));
}

}  // namespace static_runtime
