// OutputSlab: one allocation per run for the tensors a run hands out (graph
// outputs, and values that leave the memory plan otherwise), instead of one
// per tensor. Each run gets a new slab, sized from the tensors of earlier
// successful runs (their largest size, 64-byte aligned); every slot listed
// gets a tensor of its last dtype whose storage is its own piece of the
// slab, so an out-variant kernel writes its result there without
// allocating. Each piece holds a reference to the slab: the slab's memory
// is freed when the last tensor using it is (a caller who keeps one output
// keeps the whole slab). A kernel that needs more than its piece gets
// ordinary memory (the storage is resizable) and lets go of the piece; one
// that does not use its piece drops it.
//
//   Allocate(values): before a run; the listed slots must be empty. Does
//     nothing until a successful run has been learned.
//   Learn(values): after a successful run, before its slots are emptied.
//
// Not thread-safe (one per runtime); the pieces may be freed on any thread.
#ifndef STATIC_RUNTIME_MEMORY_OUTPUT_SLAB_H_
#define STATIC_RUNTIME_MEMORY_OUTPUT_SLAB_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/types/span.h"
#include "memory/planner.h"

namespace static_runtime {
namespace memory {

class OutputSlab {
 public:
  // `initial`: empty, or one record per slot (from a run on sample inputs).
  explicit OutputSlab(std::vector<uint32_t> slots, std::vector<TensorRecord> initial = {});

  void Allocate(absl::Span<c10::IValue> values);
  void Learn(absl::Span<const c10::IValue> values);

  // The tensors it places, and the bytes of the next slab (0: none yet).
  size_t tensors() const { return slots_.size(); }
  size_t bytes() const { return bytes_; }
  const std::vector<TensorRecord>& records() const { return records_; }

 private:
  void Size();  // bytes_ from records_

  std::vector<uint32_t> slots_;
  std::vector<TensorRecord> records_;
  size_t bytes_ = 0;
};

}  // namespace memory
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_MEMORY_OUTPUT_SLAB_H_
