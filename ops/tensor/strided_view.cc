#include "ops/tensor/strided_view.h"

#include <vector>

#include "ATen/ExpandUtils.h"
#include "ATen/InferSize.h"
#include "ATen/TensorUtils.h"
#include "c10/core/InferenceMode.h"

namespace static_runtime {
namespace {

// The dispatch keys of an inference CPU tensor; a caller's tensor has
// autograd's on top.
c10::DispatchKeySet ViewKeys(const at::Tensor& self) {
  return self.key_set() - c10::autograd_dispatch_keyset_with_ADInplaceOrView;
}

// `dim` wrapped into [0, rank), or nullopt when out of range (and for rank
// 0, whose dims ATen wraps its own way).
std::optional<int64_t> Wrap(int64_t dim, int64_t rank) {
  if (rank <= 0 || dim < -rank || dim >= rank) return std::nullopt;
  return dim < 0 ? dim + rank : dim;
}

at::Tensor MakeView(const at::Tensor& self, at::IntArrayRef sizes, at::IntArrayRef strides,
                    int64_t storage_offset) {
  auto impl = c10::make_intrusive<c10::TensorImpl>(
      c10::TensorImpl::VIEW, c10::Storage(self.storage()), ViewKeys(self), self.dtype());
  impl->set_sizes_and_strides(sizes, strides, c10::make_optional(storage_offset));
  return at::Tensor(std::move(impl));
}

at::Tensor MakeView(const at::Tensor& self, at::IntArrayRef sizes, at::IntArrayRef strides) {
  return MakeView(self, sizes, strides, self.storage_offset());
}

// `self`'s sizes and strides, to change into a view's.
struct Geometry {
  at::DimVector sizes;
  at::DimVector strides;
  explicit Geometry(const at::Tensor& self)
      : sizes(self.sizes().begin(), self.sizes().end()),
        strides(self.strides().begin(), self.strides().end()) {}
  void Erase(int64_t dim) {
    sizes.erase(sizes.begin() + dim);
    strides.erase(strides.begin() + dim);
  }
};

}  // namespace

bool StridedViewOk(const at::Tensor& self, bool only_read_within_run) {
  if (!c10::InferenceMode::is_enabled() || !self.defined() || self.has_names()) return false;
  if (!self.is_inference() && !only_read_within_run) return false;
  // Only the CPU key (and autocast's, which every CPU tensor carries) below
  // autograd's: no quantized, sparse, MKL-DNN, nested, conjugate or
  // negative view, no Python subclass.
  return ViewKeys(self).remove(c10::DispatchKey::AutocastCPU) ==
         c10::DispatchKeySet(c10::DispatchKey::CPU);
}

std::optional<at::Tensor> SliceView(const at::Tensor& self, int64_t dim,
                                    c10::optional<int64_t> start, c10::optional<int64_t> end,
                                    int64_t step) {
  const std::optional<int64_t> d = Wrap(dim, self.dim());
  if (!d || step <= 0) return std::nullopt;
  Geometry g(self);
  const int64_t size = g.sizes[*d];
  int64_t first = start.value_or(0);
  int64_t last = end.value_or(INT64_MAX);
  if (first < 0) first += size;
  if (last < 0) last += size;
  first = std::min(std::max<int64_t>(first, 0), size);
  last = std::min(std::max(last, first), size);
  const int64_t offset = self.storage_offset() + first * g.strides[*d];
  g.sizes[*d] = (last - first + step - 1) / step;
  g.strides[*d] *= step;
  return MakeView(self, g.sizes, g.strides, offset);
}

std::optional<at::Tensor> NarrowView(const at::Tensor& self, int64_t dim, int64_t start,
                                     int64_t length) {
  const std::optional<int64_t> d = Wrap(dim, self.dim());
  if (!d) return std::nullopt;
  const int64_t size = self.size(*d);
  if (start != size) {
    if (start < -size || start >= size) return std::nullopt;
    if (start < 0) start += size;
  }
  if (length < 0 || start > size - length) return std::nullopt;
  return SliceView(self, *d, start, start + length, 1);
}

std::optional<at::Tensor> SelectView(const at::Tensor& self, int64_t dim, int64_t index) {
  const std::optional<int64_t> d = Wrap(dim, self.dim());
  if (!d) return std::nullopt;
  Geometry g(self);
  const int64_t size = g.sizes[*d];
  if (index < -size || index >= size) return std::nullopt;
  if (index < 0) index += size;
  const int64_t offset = self.storage_offset() + index * g.strides[*d];
  g.Erase(*d);
  return MakeView(self, g.sizes, g.strides, offset);
}

std::optional<at::Tensor> TransposeView(const at::Tensor& self, int64_t dim0, int64_t dim1) {
  const std::optional<int64_t> d0 = Wrap(dim0, self.dim());
  const std::optional<int64_t> d1 = Wrap(dim1, self.dim());
  if (!d0 || !d1) return std::nullopt;
  Geometry g(self);
  std::swap(g.sizes[*d0], g.sizes[*d1]);
  std::swap(g.strides[*d0], g.strides[*d1]);
  return MakeView(self, g.sizes, g.strides);
}

std::optional<at::Tensor> TView(const at::Tensor& self) {
  if (self.dim() == 0 || self.dim() > 2) return std::nullopt;
  return TransposeView(self, 0, self.dim() - 1);
}

std::optional<at::Tensor> PermuteView(const at::Tensor& self, at::IntArrayRef dims) {
  const int64_t rank = self.dim();
  if (static_cast<int64_t>(dims.size()) != rank) return std::nullopt;
  Geometry g(self);
  std::vector<bool> seen(rank, false);
  for (int64_t i = 0; i < rank; ++i) {
    const std::optional<int64_t> d = Wrap(dims[i], rank);
    if (!d || seen[*d]) return std::nullopt;
    seen[*d] = true;
    g.sizes[i] = self.size(*d);
    g.strides[i] = self.stride(*d);
  }
  return MakeView(self, g.sizes, g.strides);
}

std::optional<at::Tensor> UnsqueezeView(const at::Tensor& self, int64_t dim) {
  const std::optional<int64_t> d = Wrap(dim, self.dim() + 1);
  if (!d) return std::nullopt;
  Geometry g(self);
  const int64_t stride = *d >= self.dim() ? 1 : g.sizes[*d] * g.strides[*d];
  g.sizes.insert(g.sizes.begin() + *d, 1);
  g.strides.insert(g.strides.begin() + *d, stride);
  return MakeView(self, g.sizes, g.strides);
}

std::optional<at::Tensor> SqueezeView(const at::Tensor& self) {
  Geometry g(self);
  for (int64_t d = self.dim() - 1; d >= 0; --d) {
    if (g.sizes[d] == 1) g.Erase(d);
  }
  return MakeView(self, g.sizes, g.strides);
}

std::optional<at::Tensor> SqueezeDimView(const at::Tensor& self, int64_t dim) {
  const std::optional<int64_t> d = Wrap(dim, self.dim());
  if (!d) return std::nullopt;
  Geometry g(self);
  if (g.sizes[*d] == 1) g.Erase(*d);
  return MakeView(self, g.sizes, g.strides);
}

std::optional<at::Tensor> ExpandView(const at::Tensor& self, at::IntArrayRef size) {
  if (static_cast<int64_t>(size.size()) < self.dim()) return std::nullopt;
  for (int64_t s : size) {
    if (s < -1) return std::nullopt;
  }
  // ATen's own geometry (and its errors).
  const auto expanded = at::inferExpandGeometry_dimvector(self.sizes(), self.strides(), size);
  return MakeView(self, expanded.sizes, expanded.strides);
}

std::optional<at::Tensor> ReshapeView(const at::Tensor& self, at::IntArrayRef size) {
  // ATen's own size inference (and its errors) and stride computation.
  const at::DimVector shape = at::infer_size_dv(size, self.numel());
  const c10::optional<at::DimVector> strides =
      at::detail::computeStride(self.sizes(), self.strides(), shape);
  if (!strides) return std::nullopt;
  return MakeView(self, shape, *strides);
}

std::optional<at::Tensor> FlattenView(const at::Tensor& self, int64_t start, int64_t end) {
  const std::optional<int64_t> first = Wrap(start, self.dim());
  const std::optional<int64_t> last = Wrap(end, self.dim());
  if (!first || !last || *first > *last) return std::nullopt;
  if (*first == *last) return self;
  at::DimVector shape(self.sizes().begin(), self.sizes().begin() + *first);
  shape.push_back(c10::multiply_integers(self.sizes().slice(*first, *last - *first + 1)));
  shape.insert(shape.end(), self.sizes().begin() + *last + 1, self.sizes().end());
  return ReshapeView(self, shape);
}

}  // namespace static_runtime
