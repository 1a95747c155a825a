// Tensors as the Open Inference Protocol carries them: a datatype name
// ("FP32", "INT64", ...), a shape, and the elements flattened row-major,
// either as raw little-endian bytes or as a list of numbers. Every function
// checks what a client sent before it allocates: datatype names, negative
// or overflowing shapes, element counts above the server's limit, and byte
// or element counts that do not match the shape; the error names the input.
#ifndef STATIC_RUNTIME_SERVER_TENSOR_CODEC_H_
#define STATIC_RUNTIME_SERVER_TENSOR_CODEC_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ATen/core/Tensor.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "c10/core/ScalarType.h"

namespace static_runtime {
namespace server {

// The protocol's datatype names this server takes and gives (BYTES, strings,
// is not one: a model's tensors never hold them).
c10::ScalarType ScalarTypeOf(absl::string_view datatype, bool* known);
absl::StatusOr<c10::ScalarType> ScalarTypeOfInput(absl::string_view input,
                                                  absl::string_view datatype);
absl::StatusOr<std::string> DatatypeOf(c10::ScalarType type);

// The number of elements of `shape`, or an error naming `input` for a
// negative size, an overflow, or more than `max_elements`.
absl::StatusOr<int64_t> CheckedElementCount(absl::string_view input,
                                            absl::Span<const int64_t> shape, int64_t max_elements);

// A tensor of `type` and `shape` holding a copy of `bytes` (row-major,
// little-endian), which must be exactly the tensor's size.
absl::StatusOr<at::Tensor> TensorFromRaw(absl::string_view input, c10::ScalarType type,
                                         absl::Span<const int64_t> shape, absl::string_view bytes,
                                         int64_t max_elements);

// A tensor of `type` and `shape` from `values` (as many as the shape has
// elements), converted as Tensor.to(type) converts.
template <typename T>
absl::StatusOr<at::Tensor> TensorFromValues(absl::string_view input, c10::ScalarType type,
                                            absl::Span<const int64_t> shape,
                                            const std::vector<T>& values, int64_t max_elements);

// Integers bound for a narrower type (UINT8, INT8, INT16, INT32) must fit
// it; the error names the input and the element.
absl::Status CheckIntegerRange(absl::string_view input, c10::ScalarType type,
                               const std::vector<int64_t>& values);

// The tensor's elements as raw bytes, row-major (a contiguous copy when it
// is not contiguous).
std::string RawBytes(const at::Tensor& tensor);

// Describes `tensor` as the protocol's gRPC tensor message `to` (a request's
// input or a response's output; its data goes in the raw contents): name,
// datatype and shape.
template <typename TensorMessage>
absl::Status DescribeTensor(const std::string& name, const at::Tensor& tensor, TensorMessage& to) {
  absl::StatusOr<std::string> datatype = DatatypeOf(tensor.scalar_type());
  if (!datatype.ok()) return datatype.status();
  to.set_name(name);
  to.set_datatype(*datatype);
  for (int64_t size : tensor.sizes()) to.add_shape(size);
  return absl::OkStatus();
}

}  // namespace server
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_SERVER_TENSOR_CODEC_H_
