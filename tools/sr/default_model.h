// The models `sr` runs when given none (--builtin=ads | op_dense), written in
// TorchScript source, each with an input spec that fits it: a small
// ads-ranking model (sparse features through embedding_bag, a dense MLP,
// pairwise feature interaction, a sigmoid head) and an op-dense model.
#ifndef STATIC_RUNTIME_TOOLS_SR_DEFAULT_MODEL_H_
#define STATIC_RUNTIME_TOOLS_SR_DEFAULT_MODEL_H_

#include "absl/status/statusor.h"
#include "torch/csrc/jit/api/module.h"

namespace static_runtime {
namespace sr {

absl::StatusOr<torch::jit::Module> DefaultModel();

// dense [batch 64, 32 features], 3 sparse id lists (offsets per bag).
extern const char kDefaultInputSpec[];

// An op-dense model: 65 small elementwise, softmax and sum ops on 8x16
// tensors, where per-node overhead dominates.
absl::StatusOr<torch::jit::Module> OpDenseModel();
extern const char kOpDenseInputSpec[];

}  // namespace sr
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_SR_DEFAULT_MODEL_H_
