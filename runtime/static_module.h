// StaticModule: a model prepared once for the static runtime, immutable and
// shared by every thread that runs it: the prepared graph, its input schema,
// every node bound to an out-variant, native or fallback kernel, and the
// memory plan (their internal form is not API: runtime/module_state.h). Create it from a Module, a
// Graph, IR text or a `.pt` file; a model that cannot be prepared gives the preparation's error.
// Run it with a StaticRuntime (one per thread) or a RuntimePool.
#ifndef STATIC_RUNTIME_RUNTIME_STATIC_MODULE_H_
#define STATIC_RUNTIME_RUNTIME_STATIC_MODULE_H_

#include <memory>
#include <string>
#include <vector>

#include "ATen/core/function_schema.h"
#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "options/options.h"
#include "runtime/types.h"
#include "torch/csrc/jit/api/module.h"

namespace static_runtime {

struct ModuleState;

class StaticModule {
 public:
  using Ptr = std::shared_ptr<const StaticModule>;

  // `module.forward`; frozen first unless `is_frozen`. `sample_inputs` are
  // optional example inputs (one set of forward's arguments, or several:
  // runtime/types.h) for shape-dependent preparation, the memory plan and
  // the kernels' preparation of their shapes.
  static absl::StatusOr<Ptr> FromModule(const torch::jit::Module& module, bool is_frozen,
                                        const Options& options = Options(),
                                        const SampleInputs& sample_inputs = {});
  static absl::StatusOr<Ptr> FromGraph(const std::shared_ptr<torch::jit::Graph>& graph,
                                       const Options& options = Options(),
                                       const SampleInputs& sample_inputs = {});
  static absl::StatusOr<Ptr> FromIR(absl::string_view ir, const Options& options = Options(),
                                    const SampleInputs& sample_inputs = {});
  // A TorchScript archive saved by torch.jit.save (frozen or not). Compiled
  // packages and the model cache: runtime/package.h, runtime/model_cache.h.
  static absl::StatusOr<Ptr> FromFile(const std::string& path, const Options& options = Options(),
                                      const SampleInputs& sample_inputs = {});
  ~StaticModule();

  // The prepared graph the runtime runs, and forward's schema without self.
  const std::shared_ptr<torch::jit::Graph>& graph() const;
  const c10::FunctionSchema& schema() const;
  const Options& options() const;
  const KernelCounts& kernel_counts() const;
  // Every node of graph() (sub-blocks' after their If or Loop), with what it
  // runs as and, for nodes around fused groups, why they fused or did not.
  std::vector<NodeDescription> DescribeNodes() const;
  // What the caches of its kernels hold now, all nodes together: plans per
  // input shape (at most options().shape_plans_per_kernel per cache, the
  // least recently used dropped first) and weights re-laid out for kernels.
  // Shared by every runtime of the module.
  KernelCacheStats KernelCaches() const;

  // Memory planning (zero unless options().optimize_memory): how many
  // intermediate tensors a run places in its arena, and with
  // options().manage_output_tensors, how many outputs in its output buffer.
  size_t planned_tensors() const;
  size_t output_buffer_tensors() const;
  // What the sample inputs the memory plan was made from were, one line per
  // input ("Float[1, 3, 224, 224]", "int", ...), of each set in turn; empty
  // without samples.
  const std::vector<std::string>& planned_inputs() const;

  // The arguments of one call, bound to the schema and type-checked.
  absl::StatusOr<std::vector<c10::IValue>> Bind(absl::Span<const c10::IValue> args,
                                                const KwargMap& kwargs) const;

 private:
  // The runtime's own access to the state (runtime/module_state.h).
  friend struct ModuleState;
  explicit StaticModule(std::unique_ptr<ModuleState> state);

  std::unique_ptr<ModuleState> state_;
};

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_STATIC_MODULE_H_
