// OutputSlab: at most one allocation per run for the tensors a run hands out
// (graph outputs, and values that leave the memory plan otherwise), instead
// of one per tensor, and none when the caller let go of every tensor of the
// previous run. Each run gets a slab, sized from the tensors of earlier
// successful runs (their largest size, 64-byte aligned): the previous run's
// when nothing but the OutputSlab holds it any more and its size is right
// (then its memory is reused, as the arena's), else a new one (the previous
// one is freed when the caller lets go of its last tensor); every slot listed
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
// Between runs the OutputSlab keeps the last slab (memory_stats() counts it).
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
  ~OutputSlab();
  OutputSlab(const OutputSlab&) = delete;
  OutputSlab& operator=(const OutputSlab&) = delete;

  void Allocate(absl::Span<c10::IValue> values);
  void Learn(absl::Span<const c10::IValue> values);

  // The tensors it places, and the bytes of the next slab (0: none yet).
  size_t tensors() const { return slots_.size(); }
  size_t bytes() const { return bytes_; }
  const std::vector<TensorRecord>& records() const { return records_; }

 private:
  struct Slab;
  void Size();  // bytes_ from records_
  // The slab for the next run: the kept one when it may be reused, else a
  // new one (and the kept one let go of).
  Slab* NextSlab();

  std::vector<uint32_t> slots_;
  std::vector<TensorRecord> records_;
  size_t bytes_ = 0;
  Slab* kept_ = nullptr;  // the last slab (one reference), or nullptr
  size_t kept_bytes_ = 0;
};

}  // namespace memory
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_MEMORY_OUTPUT_SLAB_H_
