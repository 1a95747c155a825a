#include "memory/planner.h"

#include <algorithm>
#include <cstring>

#include "ATen/ATen.h"
#include "memory/unallocated_tensor.h"
#include "sanitizer/asan_interface.h"

namespace static_runtime {
namespace memory {
namespace {

// A dense CPU tensor with storage: one a planned tensor could stand for (a
// nested tensor, for one, has storage but sizes of its own; a quantized
// one carries its quantizer, which a plain tensor of its dtype lacks).
bool PlannableTensor(const at::Tensor& tensor) {
  return tensor.defined() && tensor.is_cpu() && tensor.has_storage() &&
         tensor.layout() == at::kStrided && !tensor.is_nested() && !tensor.is_quantized();
}

// The managed tensor in `value`, if it is one the planner may re-point:
// plannable, its storage held by nothing else (unless `shared_ok`).
at::Tensor* OwnedTensor(c10::IValue& value, bool shared_ok = false) {
  if (!value.isTensor()) return nullptr;
  at::Tensor& tensor = value.toTensor();
  if (!PlannableTensor(tensor)) return nullptr;
  if (!shared_ok && (tensor.use_count() != 1 || tensor.storage().use_count() != 1)) {
    return nullptr;
  }
  return &tensor;
}

void Detach(at::Tensor& tensor) {
  PointStorageAt(tensor, c10::DataPtr(nullptr, c10::Device(c10::kCPU)), 0);
  tensor.unsafeGetTensorImpl()->set_sizes_contiguous({0});
}

// Fills `bytes` at `data` with the poison pattern and poisons them for ASan.
void Poison(char* data, size_t bytes) {
  if (bytes == 0) return;
  ASAN_UNPOISON_MEMORY_REGION(data, bytes);  // it may be poisoned already
  std::memset(data, 0xFF, bytes);
  ASAN_POISON_MEMORY_REGION(data, bytes);
}

void Unpoison(char* data, size_t bytes) {
  if (bytes > 0) ASAN_UNPOISON_MEMORY_REGION(data, bytes);
}

}  // namespace

MemoryPlanner::MemoryPlanner(std::vector<uint32_t> slots, std::vector<Lifetime> lifetimes,
                             std::vector<TensorRecord> initial, bool handed_out)
    : slots_(std::move(slots)),
      lifetimes_(std::move(lifetimes)),
      records_(std::move(initial)),
      handed_out_(handed_out) {
  records_.resize(slots_.size());
  for (uint32_t slot : slots_) {
    if (slot >= is_managed_.size()) is_managed_.resize(slot + 1, false);
    is_managed_[slot] = true;
  }
  stats_.managed_tensors = slots_.size();
  if (std::any_of(records_.begin(), records_.end(),
                  [](const TensorRecord& r) { return r.bytes > 0; })) {
    Replan();
  }
}

MemoryPlanner::~MemoryPlanner() {
  // The arena goes back to the allocator as ordinary memory.
  if (poison_ && arena_.data() != nullptr) Unpoison(arena_.data(), arena_.capacity());
}

void MemoryPlanner::BeforeNode(size_t number) {
  if (!poison_ || !planned_) return;
  for (size_t i = 0; i < lifetimes_.size(); ++i) {
    if (live_[i] && lifetimes_[i].last < number) {
      Poison(arena_.data() + plan_.offsets[i], lifetimes_[i].bytes);
      live_[i] = false;
    }
  }
  for (size_t i = 0; i < lifetimes_.size(); ++i) {
    if (lifetimes_[i].first == number) {
      Unpoison(arena_.data() + plan_.offsets[i], lifetimes_[i].bytes);
      live_[i] = true;
    }
  }
}

bool MemoryPlanner::IsManaged(uint32_t slot) const {
  return slot < is_managed_.size() && is_managed_[slot];
}

void MemoryPlanner::Replan() {
  for (size_t i = 0; i < lifetimes_.size(); ++i) lifetimes_[i].bytes = records_[i].bytes;
  const Plan groups = PlanMemory(Algorithm::kStorageGroups, lifetimes_, Arena::kAlignment);
  const Plan greedy = PlanMemory(Algorithm::kGreedyBySize, lifetimes_, Arena::kAlignment);
  stats_.storage_groups_bytes = groups.arena_bytes;
  stats_.greedy_by_size_bytes = greedy.arena_bytes;
  stats_.lower_bound_bytes = LowerBound(lifetimes_, Arena::kAlignment);
  const bool use_greedy = greedy.arena_bytes <= groups.arena_bytes;
  stats_.algorithm =
      AlgorithmName(use_greedy ? Algorithm::kGreedyBySize : Algorithm::kStorageGroups);
  plan_ = use_greedy ? greedy : groups;
  // A tensor is reused if some other tensor starts where it starts.
  stats_.reused_tensors = 0;
  for (size_t i = 0; i < plan_.offsets.size(); ++i) {
    for (size_t j = 0; j < plan_.offsets.size(); ++j) {
      if (i != j && lifetimes_[i].bytes > 0 && lifetimes_[j].bytes > 0 &&
          plan_.offsets[i] < plan_.offsets[j] + lifetimes_[j].bytes &&
          plan_.offsets[j] < plan_.offsets[i] + lifetimes_[i].bytes) {
        ++stats_.reused_tensors;
        break;
      }
    }
  }
  planned_ = true;
  ++stats_.replans;
}

void MemoryPlanner::Allocate(absl::Span<c10::IValue> values) {
  if (!planned_) return;                                    // first run: sizes are learned
  if (poison_) Unpoison(arena_.data(), arena_.capacity());  // growing frees it
  const size_t capacity = arena_.capacity();
  arena_.Reserve(plan_.arena_bytes);
  stats_.arena_bytes = arena_.capacity();
  if (release_freed_heap_ && arena_.capacity() != capacity &&
      arena_.capacity() >= kReleaseFromArenaBytes) {
    release_freed_heap_();
  }
  if (poison_) {
    Poison(arena_.data(), arena_.capacity());
    live_.assign(lifetimes_.size(), false);
  }
  for (size_t i = 0; i < slots_.size(); ++i) {
    c10::IValue& value = values[slots_[i]];
    if (records_[i].dtype && (value.isNone() || (handed_out_ && OwnedTensor(value) == nullptr))) {
      // Empty, or (an output) still held by the caller: a tensor of our own.
      value = UnallocatedTensor(*records_[i].dtype);
    }
    if (lifetimes_[i].bytes == 0) continue;  // stays empty, costs nothing
    at::Tensor* tensor = OwnedTensor(value);
    if (tensor == nullptr) continue;
    // No deleter: the arena owns the memory.
    PointStorageAt(*tensor, c10::DataPtr(arena_.data() + plan_.offsets[i], c10::Device(c10::kCPU)),
                   lifetimes_[i].bytes);
  }
}

void MemoryPlanner::Release(absl::Span<c10::IValue> values, bool learn) {
  if (poison_ && planned_) {
    Poison(arena_.data(), arena_.capacity());
    live_.assign(lifetimes_.size(), false);
  }
  bool grew = learn && !planned_;
  auto record = [&](size_t i, const at::Tensor& tensor) {
    if (!learn) return;
    const size_t bytes = tensor.storage().nbytes();
    records_[i].dtype = tensor.scalar_type();
    if (bytes > records_[i].bytes) {
      records_[i].bytes = bytes;
      grew = true;
    }
  };
  for (size_t i = 0; i < slots_.size(); ++i) {
    c10::IValue& value = values[slots_[i]];
    at::Tensor* tensor = OwnedTensor(value, handed_out_);
    if (tensor == nullptr) {
      // Not ours to recycle: drop it. If it is a tensor something else still
      // holds (say, a kernel returned a view of its own temporary), remember
      // its size so the next run gives the slot a tensor of our own.
      if (value.isTensor() && PlannableTensor(value.toTensor())) record(i, value.toTensor());
      value = c10::IValue();
      continue;
    }
    record(i, *tensor);
    Detach(*tensor);
  }
  if (grew) Replan();
}

bool MemoryPlanner::InArena(const void* pointer) const {
  const char* p = static_cast<const char*>(pointer);
  return p != nullptr && p >= arena_.data() && p < arena_.data() + arena_.capacity();
}

bool MemoryPlanner::IsReleased(absl::Span<const c10::IValue> values, uint32_t slot) const {
  if (!IsManaged(slot)) return false;
  const c10::IValue& value = values[slot];
  if (value.isNone()) return true;
  if (!value.isTensor()) return false;
  const at::Tensor& tensor = value.toTensor();
  return tensor.defined() && tensor.has_storage() && tensor.storage().nbytes() == 0 &&
         tensor.storage().data() == nullptr;
}

}  // namespace memory
}  // namespace static_runtime
