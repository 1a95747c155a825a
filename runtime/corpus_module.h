// Test and benchmark helper (testonly): a corpus model (verify/corpus.h)
// built as a TorchScript module and prepared as a StaticModule, the pair most
// runtime tests start from. The module is the unfrozen one, the JIT baseline.
#ifndef STATIC_RUNTIME_RUNTIME_CORPUS_MODULE_H_
#define STATIC_RUNTIME_RUNTIME_CORPUS_MODULE_H_

#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"
#include "options/options.h"
#include "runtime/static_module.h"
#include "torch/csrc/jit/api/module.h"
#include "verify/corpus.h"

namespace static_runtime {

struct CorpusModule {
  const corpus::Model* model;
  torch::jit::Module module;
  StaticModule::Ptr static_module;
};

// Builds `model` and prepares it (not frozen in Python) with `options`,
// planning memory with `sample_inputs` when given.
absl::StatusOr<CorpusModule> PrepareCorpusModel(const corpus::Model& model,
                                                const Options& options = Options(),
                                                const std::vector<c10::IValue>& sample_inputs = {});

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_CORPUS_MODULE_H_
