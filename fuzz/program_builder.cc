#include "fuzz/program_builder.h"

namespace static_runtime {
namespace fuzz {

at::ScalarType Promote(at::ScalarType a, at::ScalarType b) {
  return a == at::kFloat || b == at::kFloat ? at::kFloat : at::kLong;
}

std::string Literal(at::ScalarType dtype, uint32_t choice) {
  return dtype == at::kFloat ? kFloatLiterals[choice % 4] : kIntLiterals[choice % 4];
}

Value Fresh(at::ScalarType dtype, Shape shape) {
  Value value;
  value.dtype = dtype;
  value.shape = std::move(shape);
  value.writable = true;
  return value;
}

Value ViewOf(const Value& base, Shape shape) {
  Value value = base;
  value.shape = std::move(shape);
  value.size.reset();
  return value;
}

Value IntValue(std::optional<Dim> size) {
  Value value;
  value.kind = Kind::kInt;
  value.size = size;
  return value;
}

std::string DimArg(int64_t dim, int64_t rank, uint32_t choice) {
  return absl::StrCat(choice % 2 == 0 ? dim : dim - rank);
}

namespace {

// Indices of the dims of `shape` that `accept` takes.
std::vector<int64_t> DimsWhere(const Shape& shape, const AcceptDim& accept) {
  std::vector<int64_t> dims;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (accept(shape[i])) dims.push_back(static_cast<int64_t>(i));
  }
  return dims;
}

}  // namespace

ValueDim Builder::PickWithDim(uint32_t choice, uint32_t dim_choice, const Accept& accept,
                              const AcceptDim& accept_dim) {
  const int x = Pick(
      choice, [&](const Value& v) { return accept(v) && !DimsWhere(v.shape, accept_dim).empty(); });
  if (x < 0) return {};
  const std::vector<int64_t> dims = DimsWhere(values_[x].shape, accept_dim);
  return {x, dims[dim_choice % dims.size()]};
}

std::string SlicePrefix(int64_t dim) {
  std::string prefix;
  for (int64_t i = 0; i < dim; ++i) prefix += ":, ";
  return prefix;
}

}  // namespace fuzz
}  // namespace static_runtime
