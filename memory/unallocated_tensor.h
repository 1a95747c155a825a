// Tensors whose memory the memory/ classes provide: a CPU tensor with no
// memory yet, made without the allocator, and a way to point its storage at
// memory the caller owns or shares out. The storage stays resizable through
// LibTorch's CPU allocator, so a kernel that needs more than it was given
// gets ordinary memory (and lets go of what it was given).
#ifndef STATIC_RUNTIME_MEMORY_UNALLOCATED_TENSOR_H_
#define STATIC_RUNTIME_MEMORY_UNALLOCATED_TENSOR_H_

#include <cstddef>

#include "ATen/ATen.h"

namespace static_runtime {
namespace memory {

// A CPU tensor of `dtype` with no elements and no memory.
at::Tensor UnallocatedTensor(c10::ScalarType dtype);

// Points `tensor`'s storage (held by nothing else) at `data`, `bytes` long.
void PointStorageAt(at::Tensor& tensor, c10::DataPtr data, size_t bytes);

}  // namespace memory
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_MEMORY_UNALLOCATED_TENSOR_H_
