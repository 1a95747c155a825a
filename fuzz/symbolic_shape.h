// Tensor shapes symbolic in the batch size B (each size per_batch * B +
// fixed), so that one random program runs at several batch sizes: products,
// NumPy-style broadcasting that holds at every B, and their text.
#ifndef STATIC_RUNTIME_FUZZ_SYMBOLIC_SHAPE_H_
#define STATIC_RUNTIME_FUZZ_SYMBOLIC_SHAPE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ATen/ATen.h"

namespace static_runtime {
namespace fuzz {

// A size: per_batch * B + fixed.
struct Dim {
  int64_t per_batch = 0;
  int64_t fixed = 0;
  bool operator==(const Dim& other) const {
    return per_batch == other.per_batch && fixed == other.fixed;
  }
  bool operator!=(const Dim& other) const { return !(*this == other); }
  bool IsFixed() const { return per_batch == 0; }
  bool IsOne() const { return per_batch == 0 && fixed == 1; }
  // At least 1 at every batch size (B >= 1).
  bool NeverEmpty() const { return per_batch >= 0 && per_batch + fixed >= 1; }
};
using Shape = std::vector<Dim>;

// How the program's comments print sizes ("2B+1"), shapes ("[B, 4]") and
// dtypes ("float").
std::string DimText(const Dim& dim);
std::string ShapeText(const Shape& shape);
std::string DtypeText(at::ScalarType dtype);

// dim * factor, if representable.
Dim Times(const Dim& dim, int64_t factor);

// The product of dims, if at most one depends on B.
std::optional<Dim> Product(const Shape& shape, size_t begin, size_t end);

// Numpy-style broadcasting of two shapes, if they are compatible at every B.
std::optional<Shape> Broadcast(const Shape& a, const Shape& b);

// b broadcasts into a's shape (as an in-place op's other operand must).
bool BroadcastsInto(const Shape& b, const Shape& a);

}  // namespace fuzz
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_FUZZ_SYMBOLIC_SHAPE_H_
