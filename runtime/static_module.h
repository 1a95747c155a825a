// StaticModule: a model prepared once for the static runtime, immutable and
// shared by every thread that runs it. It holds the prepared graph, its input
// schema, the flat value layout and the execution plan (each node bound to an
// out-variant, native or fallback kernel). Create it from a Module, a Graph,
// IR text or a `.pt` file; a model that cannot be prepared gives the
// preparation's error. Run it with a StaticRuntime (one per thread) or a
// RuntimePool.
#ifndef STATIC_RUNTIME_RUNTIME_STATIC_MODULE_H_
#define STATIC_RUNTIME_RUNTIME_STATIC_MODULE_H_

#include <memory>
#include <string>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "memory/plan.h"
#include "memory/planner.h"
#include "options/options.h"
#include "passes/prepare.h"
#include "runtime/arguments.h"
#include "runtime/package.h"
#include "runtime/plan.h"
#include "runtime/value_layout.h"
#include "torch/csrc/jit/api/module.h"

namespace static_runtime {

class StaticModule {
 public:
  using Ptr = std::shared_ptr<const StaticModule>;

  // `module.forward`; frozen first unless `is_frozen`. `sample_inputs` are
  // optional example inputs for shape-dependent preparation.
  static absl::StatusOr<Ptr> FromModule(const torch::jit::Module& module, bool is_frozen,
                                        const Options& options = Options(),
                                        const std::vector<c10::IValue>& sample_inputs = {});
  static absl::StatusOr<Ptr> FromGraph(const std::shared_ptr<torch::jit::Graph>& graph,
                                       const Options& options = Options(),
                                       const std::vector<c10::IValue>& sample_inputs = {});
  static absl::StatusOr<Ptr> FromIR(absl::string_view ir, const Options& options = Options(),
                                    const std::vector<c10::IValue>& sample_inputs = {});
  // A TorchScript archive saved by torch.jit.save. With a cache directory
  // (Options::cache_dir or STATIC_RUNTIME_CACHE_DIR), through the persistent
  // model cache (runtime/model_cache.h).
  static absl::StatusOr<Ptr> FromFile(const std::string& path,
                                      const Options& options = Options(),
                                      const std::vector<c10::IValue>& sample_inputs = {});
  // A compiled package (runtime/package.h) written by SavePackage or `sr
  // compile`: no archive is loaded and no pass runs. The package's options
  // are used. InvalidArgument for a damaged or malformed package,
  // FailedPrecondition for one written by another library, LibTorch or
  // package format version, or whose nodes this build binds to other kernels.
  static absl::StatusOr<Ptr> FromPackage(const std::string& path);
  static absl::StatusOr<Ptr> FromPackageBytes(absl::string_view bytes);
  // A graph already prepared by one of passes/prepare.h's functions.
  static absl::StatusOr<Ptr> FromPrepared(PreparedGraph prepared, const Options& options,
                                          const std::vector<c10::IValue>& sample_inputs = {});

  const std::shared_ptr<torch::jit::Graph>& graph() const { return prepared_.graph; }
  const c10::FunctionSchema& schema() const { return prepared_.schema; }
  const Options& options() const { return options_; }
  const ValueLayout& layout() const { return layout_; }
  const BlockPlan& plan() const { return plan_; }
  const KernelCounts& kernel_counts() const { return kernel_counts_; }

  // Memory planning (empty unless options().optimize_memory): the slots of
  // the tensors a run manages, their lifetimes, and their sizes and dtypes
  // if known before the first run (from a run on the sample inputs).
  const std::vector<ValueIndex>& managed_slots() const { return managed_slots_; }
  const std::vector<memory::Lifetime>& managed_lifetimes() const { return managed_lifetimes_; }
  const std::vector<memory::TensorRecord>& initial_records() const { return initial_records_; }
  // With options().manage_output_tensors: the graph outputs that live in the
  // runtime's output buffer until the caller releases them.
  const std::vector<ValueIndex>& output_slots() const { return output_slots_; }
  const std::vector<memory::Lifetime>& output_lifetimes() const { return output_lifetimes_; }

  // What the sample inputs the memory plan was made from were, one line per
  // input ("Float[1, 3, 224, 224]", "int", ...); empty without samples.
  const std::vector<std::string>& planned_inputs() const { return planned_inputs_; }

  // Writes this module as a package to `path`, atomically (a temporary file
  // in the same directory, renamed). With `packed_weights`, the oneDNN
  // layouts the kernels have packed frozen weights into so far (on the
  // sample inputs) go in too, and a module loaded from the package starts
  // with them (see the README for when that pays). InvalidArgument if the
  // graph holds a value a package cannot (a type attribute, a custom class
  // object).
  absl::Status SavePackage(const std::string& path, const PackageSource& source = {},
                           bool packed_weights = false) const;

  // The arguments of one call, bound to the schema and type-checked.
  absl::StatusOr<std::vector<c10::IValue>> Bind(absl::Span<const c10::IValue> args,
                                                const KwargMap& kwargs) const {
    return BindArguments(schema(), args, kwargs);
  }

 private:
  StaticModule(PreparedGraph prepared, Options options, ValueLayout layout, BlockPlan plan);
  // FromPackage's work on the package's bytes, which its tensors keep alive.
  static absl::StatusOr<Ptr> FromPackageBuffer(std::shared_ptr<const std::string> buffer);
  // Binds the prepared graph's nodes to kernels; no memory plan records yet.
  static absl::StatusOr<std::shared_ptr<StaticModule>> BindKernels(PreparedGraph prepared,
                                                                   const Options& options);

  PreparedGraph prepared_;
  Options options_;
  ValueLayout layout_;
  BlockPlan plan_;
  KernelCounts kernel_counts_;
  std::vector<ValueIndex> managed_slots_;
  std::vector<memory::Lifetime> managed_lifetimes_;
  std::vector<memory::TensorRecord> initial_records_;
  std::vector<ValueIndex> output_slots_;
  std::vector<memory::Lifetime> output_lifetimes_;
  std::vector<std::string> planned_inputs_;
};

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_STATIC_MODULE_H_
