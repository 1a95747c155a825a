#include "runtime/corpus_module.h"

#include "absl/status/status.h"
#include "errors/status_macros.h"

namespace static_runtime {

absl::StatusOr<CorpusModule> PrepareCorpusModel(const corpus::Model& model, const Options& options,
                                                const std::vector<c10::IValue>& sample_inputs) {
  ASSIGN_OR_RETURN(torch::jit::Module module, corpus::Build(model));
  ASSIGN_OR_RETURN(StaticModule::Ptr static_module,
                   StaticModule::FromModule(module, /*is_frozen=*/false, options, sample_inputs));
  return CorpusModule{&model, std::move(module), std::move(static_module)};
}

}  // namespace static_runtime
