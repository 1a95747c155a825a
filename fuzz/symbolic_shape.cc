#include "fuzz/symbolic_shape.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace static_runtime {
namespace fuzz {

std::string DimText(const Dim& dim) {
  if (dim.per_batch == 0) return absl::StrCat(dim.fixed);
  std::string text = dim.per_batch == 1 ? "B" : absl::StrCat(dim.per_batch, "B");
  if (dim.fixed > 0) absl::StrAppend(&text, "+", dim.fixed);
  if (dim.fixed < 0) absl::StrAppend(&text, dim.fixed);
  return text;
}

std::string ShapeText(const Shape& shape) {
  return absl::StrCat(
      "[",
      absl::StrJoin(shape, ", ", [](std::string* out, const Dim& d) { out->append(DimText(d)); }),
      "]");
}

std::string DtypeText(at::ScalarType dtype) {
  return dtype == at::kFloat ? "float" : dtype == at::kLong ? "long" : "bool";
}

Dim Times(const Dim& dim, int64_t factor) { return {dim.per_batch * factor, dim.fixed * factor}; }

std::optional<Dim> Product(const Shape& shape, size_t begin, size_t end) {
  Dim product{0, 1};
  for (size_t i = begin; i < end; ++i) {
    if (!shape[i].IsFixed() && !product.IsFixed()) return std::nullopt;
    product = shape[i].IsFixed() ? Times(product, shape[i].fixed) : Times(shape[i], product.fixed);
  }
  return product;
}

std::optional<Shape> Broadcast(const Shape& a, const Shape& b) {
  Shape result(std::max(a.size(), b.size()));
  for (size_t i = 0; i < result.size(); ++i) {
    const Dim x = i < a.size() ? a[a.size() - 1 - i] : Dim{0, 1};
    const Dim y = i < b.size() ? b[b.size() - 1 - i] : Dim{0, 1};
    if (x == y || y.IsOne()) {
      result[result.size() - 1 - i] = x;
    } else if (x.IsOne()) {
      result[result.size() - 1 - i] = y;
    } else {
      return std::nullopt;
    }
  }
  return result;
}

bool BroadcastsInto(const Shape& b, const Shape& a) {
  std::optional<Shape> result = Broadcast(a, b);
  return result && *result == a;
}

}  // namespace fuzz
}  // namespace static_runtime
