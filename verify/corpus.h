// The model corpus (test data, golden/models/): TorchScript models written as
// source (<name>.torchscript), with their parameter shapes and a TorchScript
// function of a size that makes random inputs (manifest.json; its format is
// in golden/models/README.md). The files are compiled into this library
// (verify/embed_corpus.py), so tests and tools find them wherever they run.
// Shared by the pass property tests, the golden prepared-graph tests and the
// runtime's differential tests. Models span MLPs, CNNs, ads ranking,
// attention, an LSTM, containers in and out, control flow, mutation,
// aliasing and scalars.
#ifndef STATIC_RUNTIME_VERIFY_CORPUS_H_
#define STATIC_RUNTIME_VERIFY_CORPUS_H_

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
  at::Generator& generator() { return generator_; }

 private:
  at::Generator generator_;
};

struct Model {
  std::string name;
  // TorchScript source of the module's methods; parameters are `self.<name>`.
  std::string source;
  // Parameter (buffer) names and shapes, filled with N(0, 0.5) at seed 0.
  std::vector<std::pair<std::string, std::vector<int64_t>>> parameters;
  // forward's inputs for a size variant (1 = small, 2 = larger, ...): the
  // manifest's inputs function, drawing its random numbers from `rng` (it
  // runs with the default CPU generator set to the rng's state, one draw at
  // a time in the process).
  std::function<std::vector<c10::IValue>(InputRng& rng, int64_t size)> inputs;
};

// The corpus, in the manifest's order. A model whose inputs function does
// not compile fails here, naming it.
const std::vector<Model>& Models();
const Model& ModelNamed(const std::string& name);

// The model as a (not frozen) scripted module.
absl::StatusOr<torch::jit::Module> Build(const Model& model);

}  // namespace corpus
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_VERIFY_CORPUS_H_
