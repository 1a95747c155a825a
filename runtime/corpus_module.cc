#include "runtime/corpus_module.h"

#include "absl/status/status.h"
#include "errors/status_macros.h"

namespace static_runtime {

absl::StatusOr<CorpusModule> PrepareCorpusModel(const corpus::Model& model, const Options& options,
                                                const std::vector<c10::IValue>& sample_inputs) {
  absl::StatusOr<torch::jit::Module> module = corpus::Build(model);
  RETURN_IF_ERROR(module.status());
  absl::StatusOr<StaticModule::Ptr> static_module =
      StaticModule::FromModule(*module, /*is_frozen=*/false, options, sample_inputs);
  RETURN_IF_ERROR(static_module.status());
  return CorpusModule{&model, *std::move(module), *std::move(static_module)};
}

}  // namespace static_runtime
