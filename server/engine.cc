#include "server/engine.h"

#include <utility>

#include "c10/core/InferenceMode.h"
#include "errors/status_from_exception.h"
#include "errors/status_macros.h"
#include "load/load.h"
#include "passes/freeze.h"
#include "runtime/pool.h"
#include "torch/csrc/jit/api/module.h"

namespace static_runtime {
namespace server {
namespace {

class PoolEngine : public Engine {
 public:
  PoolEngine(StaticModule::Ptr module, int instances)
      : pool_(std::move(module), static_cast<size_t>(instances)) {}
  const c10::FunctionSchema& schema() const override { return pool_.module().schema(); }
  absl::StatusOr<c10::IValue> Run(const std::vector<c10::IValue>& arguments) override {
    return pool_.Run(arguments);
  }
  std::optional<ModelMemory> Memory() override {
    ModelMemory memory;
    for (const MemoryStats& stats : pool_.IdleRuntimesMemoryStats()) {
      memory.arena_bytes += stats.intermediates.arena_bytes;
    }
    const KernelCacheStats caches = pool_.module().KernelCaches();
    memory.prepared_weight_bytes = caches.prepared_weight_bytes;
    memory.shape_plans = caches.shape_plans;
    return memory;
  }

 private:
  RuntimePool pool_;
};

class TorchScriptEngine : public Engine {
 public:
  explicit TorchScriptEngine(torch::jit::Module module)
      : module_(std::move(module)),
        method_(module_.get_method(ForwardMethodName(module_))),
        schema_(ForwardSchema(module_)) {}
  const c10::FunctionSchema& schema() const override { return schema_; }
  absl::StatusOr<c10::IValue> Run(const std::vector<c10::IValue>& arguments) override {
    try {
      c10::InferenceMode guard;
      return method_(arguments);
    } catch (const std::exception& e) {
      return StatusFromException(e, "the JIT: ");
    }
  }

 private:
  torch::jit::Module module_;
  torch::jit::Method method_;
  c10::FunctionSchema schema_;
};

}  // namespace

std::unique_ptr<Engine> StaticRuntimeEngine(StaticModule::Ptr module, int instances) {
  return std::make_unique<PoolEngine>(std::move(module), instances);
}

absl::StatusOr<std::unique_ptr<Engine>> JitEngine(const std::string& path) {
  ASSIGN_OR_RETURN(torch::jit::Module module, LoadModuleFromFile(path));
  ASSIGN_OR_RETURN(torch::jit::Module frozen, FreezeForInference(module, "forward"));
  try {
    return std::unique_ptr<Engine>(std::make_unique<TorchScriptEngine>(std::move(frozen)));
  } catch (const std::exception& e) {
    return StatusFromException(e, absl::StrCat(path, ": "));
  }
}

}  // namespace server
}  // namespace static_runtime
