// ModelSignature: a model's forward schema as the protocol's flat list of
// named tensors, both ways. An argument of type Tensor is the input of its
// name; int, float and bool arguments are one-element tensors; a
// Dict[str, T] argument `features` is the inputs named `features.KEY`, one
// per key; a List[T] or Tuple argument `xs` is `xs.0`, `xs.1`, ... (a List
// of ints or floats may also come as one 1-D tensor named `xs`); optional
// arguments and arguments with defaults may be left out (a dict or list
// argument without entries is empty). Outputs are named
// the same way from `output`: a returned tensor is `output`, a tuple's
// elements `output.0`, ..., a dict's entries `output.KEY`, nested as deep as
// the result goes; None results give no tensor, ints/floats/bools give
// zero-dimensional tensors. Every error names the input and what was wrong.
#ifndef STATIC_RUNTIME_SERVER_MODEL_SIGNATURE_H_
#define STATIC_RUNTIME_SERVER_MODEL_SIGNATURE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "ATen/core/Tensor.h"
#include "ATen/core/function_schema.h"
#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"
#include "server/model_config.h"

namespace static_runtime {
namespace server {

struct NamedTensor {
  std::string name;
  at::Tensor tensor;
};

// An input or output as ModelMetadata lists it.
struct TensorMetadata {
  std::string name;
  std::string datatype;
  std::vector<int64_t> shape;  // -1: any size
};

class ModelSignature {
 public:
  // Fails for an argument type the protocol cannot carry (strings, objects).
  static absl::StatusOr<ModelSignature> Make(const c10::FunctionSchema& schema,
                                             const std::vector<DeclaredTensor>& declared);

  // Inputs whose names are known ahead (not a dict's or list's entries),
  // with the declared datatype and shape, else FP32 (tensors: any datatype
  // is taken) and shape [-1, ...] of unknown rank ([-1]).
  const std::vector<TensorMetadata>& inputs() const { return inputs_; }
  // Outputs whose names the return type fixes (a tensor, tuples of them).
  const std::vector<TensorMetadata>& outputs() const { return outputs_; }

  // The call's arguments from the request's inputs: each one used once,
  // each name known, each declared input's datatype and shape matched.
  absl::StatusOr<std::vector<c10::IValue>> Arguments(std::vector<NamedTensor> inputs) const;

  // The result as named tensors.
  static absl::StatusOr<std::vector<NamedTensor>> Outputs(const c10::IValue& result);

  // A call's arguments as the named tensors a client sends (the inverse of
  // Arguments(); None arguments are left out).
  static absl::StatusOr<std::vector<NamedTensor>> Inputs(const c10::FunctionSchema& schema,
                                                         const std::vector<c10::IValue>& arguments);

 private:
  ModelSignature(c10::FunctionSchema schema, std::vector<DeclaredTensor> declared)
      : schema_(std::move(schema)), declared_(std::move(declared)) {}

  c10::FunctionSchema schema_;
  std::vector<DeclaredTensor> declared_;
  std::vector<TensorMetadata> inputs_;
  std::vector<TensorMetadata> outputs_;
};

}  // namespace server
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_SERVER_MODEL_SIGNATURE_H_
