// The model corpus: TorchScript models written as source, with their parameter
// shapes and a generator of random inputs at a given size. Shared by the pass
// property tests, the golden prepared-graph tests and the runtime's
// differential tests. Models span MLPs, CNNs, ads ranking, attention, an LSTM,
// containers in and out, control flow, mutation, aliasing and scalars.
#ifndef STATIC_RUNTIME_GOLDEN_MODELS_CORPUS_H_
#define STATIC_RUNTIME_GOLDEN_MODELS_CORPUS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ATen/ATen.h"
#include "absl/status/statusor.h"
#include "torch/csrc/jit/api/module.h"

namespace static_runtime {
namespace corpus {

// Deterministic random tensors for one input set.
class InputRng {
 public:
  explicit InputRng(uint64_t seed);
  at::Tensor Normal(at::IntArrayRef shape);
  at::Tensor Integers(int64_t low, int64_t high, at::IntArrayRef shape);

 private:
  at::Generator generator_;
};

struct Model {
  std::string name;
  // TorchScript source of the module's methods; parameters are `self.<name>`.
  std::string source;
  // Parameter (buffer) names and shapes, filled with N(0, 0.5) at seed 0.
  std::vector<std::pair<std::string, std::vector<int64_t>>> parameters;
  // forward's inputs for a size variant (1 = small, 2 = larger, ...).
  std::function<std::vector<c10::IValue>(InputRng&, int64_t size)> inputs;
};

const std::vector<Model>& Models();
const Model& ModelNamed(const std::string& name);

// The model as a (not frozen) scripted module.
absl::StatusOr<torch::jit::Module> Build(const Model& model);

}  // namespace corpus
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_GOLDEN_MODELS_CORPUS_H_
