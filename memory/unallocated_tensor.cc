#include "memory/unallocated_tensor.h"

#include <utility>

#include "c10/core/CPUAllocator.h"

namespace static_runtime {
namespace memory {

at::Tensor UnallocatedTensor(c10::ScalarType dtype) {
  c10::Storage storage(c10::Storage::use_byte_size_t(), 0,
                       c10::DataPtr(nullptr, c10::Device(c10::kCPU)), c10::GetCPUAllocator(),
                       /*resizable=*/true);
  return at::detail::make_tensor<c10::TensorImpl>(std::move(storage),
                                                  c10::DispatchKeySet(c10::DispatchKey::CPU),
                                                  c10::scalarTypeToTypeMeta(dtype));
}

void PointStorageAt(at::Tensor& tensor, c10::DataPtr data, size_t bytes) {
  c10::StorageImpl* storage = tensor.storage().unsafeGetStorageImpl();
  storage->set_data_ptr_noswap(std::move(data));
  storage->set_nbytes(bytes);
}

}  // namespace memory
}  // namespace static_runtime
