#include "runtime/corpus_module.h"

#include "absl/status/status.h"

namespace static_runtime {

absl::StatusOr<CorpusModule> PrepareCorpusModel(const corpus::Model& model, const Options& options,
                                                const std::vector<c10::IValue>& sample_inputs) {
  absl::StatusOr<torch::jit::Module> module = corpus::Build(model);
  if (!module.ok()) return module.status();
  absl::StatusOr<StaticModule::Ptr> static_module =
      StaticModule::FromModule(*module, /*is_frozen=*/false, options, sample_inputs);
  if (!static_module.ok()) return static_module.status();
  return CorpusModule{&model, *std::move(module), *std::move(static_module)};
}

}  // namespace static_runtime
