// Engine: what runs a served model's calls, from many threads at once: the
// static runtime (a RuntimePool over a prepared StaticModule; the default),
// or the TorchScript JIT (`sr serve --engine=jit`, as Triton's PyTorch
// backend runs TorchScript: the baseline the server's benchmarks compare
// against). Run() never throws; a model's error comes back as a Status.
#ifndef STATIC_RUNTIME_SERVER_ENGINE_H_
#define STATIC_RUNTIME_SERVER_ENGINE_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ATen/core/function_schema.h"
#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"
#include "runtime/static_module.h"
#include "server/model_metrics.h"

namespace static_runtime {
namespace server {

class Engine {
 public:
  virtual ~Engine() = default;
  // forward's schema, without self.
  virtual const c10::FunctionSchema& schema() const = 0;
  virtual absl::StatusOr<c10::IValue> Run(const std::vector<c10::IValue>& arguments) = 0;
  // What it holds in memory now, if it can tell (the static runtime can).
  virtual std::optional<ModelMemory> Memory() { return std::nullopt; }
};

// The static runtime with up to `instances` runtimes.
std::unique_ptr<Engine> StaticRuntimeEngine(StaticModule::Ptr module, int instances);

// The TorchScript JIT on the archive at `path`, frozen by FreezeForInference
// (as StaticModule::FromFile freezes it, and as `sr bench`'s JIT baseline
// is), run under InferenceMode.
absl::StatusOr<std::unique_ptr<Engine>> JitEngine(const std::string& path);

}  // namespace server
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_SERVER_ENGINE_H_
