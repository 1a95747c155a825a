#include "memory/output_slab.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <new>
#include <utility>

#include "c10/core/CPUAllocator.h"
#include "memory/arena.h"
#include "memory/unallocated_tensor.h"

namespace static_runtime {
namespace memory {
namespace {

constexpr size_t AlignUp(size_t bytes) {
  return (bytes + Arena::kAlignment - 1) / Arena::kAlignment * Arena::kAlignment;
}

// The start of a slab: how many pieces still use it, and the allocation
// itself (which this header lives in).
struct SlabHeader {
  std::atomic<size_t> pieces{0};
  c10::DataPtr memory;
};
static_assert(sizeof(SlabHeader) <= Arena::kAlignment);

// The deleter of a piece: the last one frees the slab.
void ReleasePiece(void* context) {
  auto* header = static_cast<SlabHeader*>(context);
  if (header->pieces.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  c10::DataPtr memory = std::move(header->memory);
  header->~SlabHeader();
  // `memory` goes out of scope here and frees the slab.
}

}  // namespace

OutputSlab::OutputSlab(std::vector<uint32_t> slots, std::vector<TensorRecord> initial)
    : slots_(std::move(slots)), records_(std::move(initial)) {
  records_.resize(slots_.size());
  Size();
}

void OutputSlab::Size() {
  bytes_ = 0;
  for (const TensorRecord& record : records_) {
    if (record.dtype) bytes_ += AlignUp(record.bytes);
  }
}

void OutputSlab::Allocate(absl::Span<c10::IValue> values) {
  if (bytes_ == 0) return;
  c10::DataPtr memory = c10::GetCPUAllocator()->allocate(Arena::kAlignment + bytes_);
  char* base = static_cast<char*>(memory.get());
  auto* header = new (base) SlabHeader;
  header->memory = std::move(memory);
  // This function's own reference, let go of when it returns or throws.
  header->pieces.store(1, std::memory_order_relaxed);
  const std::unique_ptr<SlabHeader, void (*)(SlabHeader*)> own(
      header, [](SlabHeader* slab) { ReleasePiece(slab); });
  size_t offset = Arena::kAlignment;
  for (size_t i = 0; i < slots_.size(); ++i) {
    const TensorRecord& record = records_[i];
    if (record.bytes == 0 || !record.dtype) continue;
    at::Tensor tensor = UnallocatedTensor(*record.dtype);
    header->pieces.fetch_add(1, std::memory_order_relaxed);
    PointStorageAt(tensor,
                   c10::DataPtr(base + offset, header, ReleasePiece, c10::Device(c10::kCPU)),
                   record.bytes);
    values[slots_[i]] = std::move(tensor);
    offset += AlignUp(record.bytes);
  }
}

void OutputSlab::Learn(absl::Span<const c10::IValue> values) {
  for (size_t i = 0; i < slots_.size(); ++i) {
    const c10::IValue& value = values[slots_[i]];
    TensorRecord& record = records_[i];
    // Plain CPU tensors only (not quantized, sparse or opaque).
    if (value.isTensor() && value.toTensor().defined() && value.toTensor().is_cpu() &&
        value.toTensor().layout() == at::kStrided && !value.toTensor().is_quantized() &&
        value.toTensor().has_storage()) {
      const at::Tensor& tensor = value.toTensor();
      record.bytes = std::max(record.bytes, tensor.storage().nbytes());
      record.dtype = tensor.scalar_type();
    }
  }
  Size();
}

}  // namespace memory
}  // namespace static_runtime
