#include "memory/output_slab.h"

#include <algorithm>
#include <atomic>
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

}  // namespace

// The start of a slab: how many references it has (its pieces, and the
// OutputSlab's while it keeps it), and the allocation itself (which this
// header lives in).
struct OutputSlab::Slab {
  std::atomic<size_t> references{0};
  c10::DataPtr memory;

  // The deleter of a piece, and how the OutputSlab lets go: the last
  // reference frees the slab.
  static void Release(void* context) {
    auto* slab = static_cast<Slab*>(context);
    if (slab->references.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    c10::DataPtr memory = std::move(slab->memory);
    slab->~Slab();
    // `memory` goes out of scope here and frees the slab.
  }
};

OutputSlab::OutputSlab(std::vector<uint32_t> slots, std::vector<TensorRecord> initial)
    : slots_(std::move(slots)), records_(std::move(initial)) {
  records_.resize(slots_.size());
  Size();
}

OutputSlab::~OutputSlab() {
  if (kept_ != nullptr) Slab::Release(kept_);
}

void OutputSlab::Size() {
  bytes_ = 0;
  for (const TensorRecord& record : records_) {
    if (record.dtype) bytes_ += AlignUp(record.bytes);
  }
}

OutputSlab::Slab* OutputSlab::NextSlab() {
  static_assert(sizeof(Slab) <= Arena::kAlignment);
  // Only the kept reference left: no tensor of an earlier run uses it (the
  // acquire pairs with the release of the last piece's, on any thread).
  if (kept_ != nullptr && kept_bytes_ == bytes_ &&
      kept_->references.load(std::memory_order_acquire) == 1) {
    return kept_;
  }
  c10::DataPtr memory = c10::GetCPUAllocator()->allocate(Arena::kAlignment + bytes_);
  if (kept_ != nullptr) Slab::Release(kept_);
  kept_ = new (memory.get()) Slab;
  kept_->memory = std::move(memory);
  kept_->references.store(1, std::memory_order_relaxed);
  kept_bytes_ = bytes_;
  return kept_;
}

void OutputSlab::Allocate(absl::Span<c10::IValue> values) {
  if (bytes_ == 0) return;
  Slab* slab = NextSlab();
  char* base = reinterpret_cast<char*>(slab);
  size_t offset = Arena::kAlignment;
  for (size_t i = 0; i < slots_.size(); ++i) {
    const TensorRecord& record = records_[i];
    if (record.bytes == 0 || !record.dtype) continue;
    at::Tensor tensor = UnallocatedTensor(*record.dtype);
    slab->references.fetch_add(1, std::memory_order_relaxed);
    PointStorageAt(tensor, c10::DataPtr(base + offset, slab, Slab::Release, c10::Device(c10::kCPU)),
                   record.bytes);
    values[slots_[i]] = std::move(tensor);
    offset += AlignUp(record.bytes);
  }
}

void OutputSlab::Learn(absl::Span<const c10::IValue> values) {
  for (size_t i = 0; i < slots_.size(); ++i) {
    const c10::IValue& value = values[slots_[i]];
    TensorRecord& record = records_[i];
    // Plain CPU tensors only (not quantized, nested, sparse or opaque).
    if (value.isTensor() && value.toTensor().defined() && value.toTensor().is_cpu() &&
        value.toTensor().layout() == at::kStrided && !value.toTensor().is_quantized() &&
        !value.toTensor().is_nested() && value.toTensor().has_storage()) {
      const at::Tensor& tensor = value.toTensor();
      record.bytes = std::max(record.bytes, tensor.storage().nbytes());
      record.dtype = tensor.scalar_type();
    }
  }
  Size();
}

}  // namespace memory
}  // namespace static_runtime
