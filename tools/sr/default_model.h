// The model `sr bench` runs when given none: a small ads-ranking model
// written in TorchScript source (sparse features through embedding_bag, a
// dense MLP, pairwise feature interaction, a sigmoid head), with an input spec
// that fits it.
#ifndef STATIC_RUNTIME_TOOLS_SR_DEFAULT_MODEL_H_
#define STATIC_RUNTIME_TOOLS_SR_DEFAULT_MODEL_H_

#include "absl/status/statusor.h"
#include "torch/csrc/jit/api/module.h"

namespace static_runtime {
namespace sr {

absl::StatusOr<torch::jit::Module> DefaultModel();

// dense [batch 64, 32 features], 3 sparse id lists (offsets per bag).
extern const char kDefaultInputSpec[];

}  // namespace sr
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_SR_DEFAULT_MODEL_H_
