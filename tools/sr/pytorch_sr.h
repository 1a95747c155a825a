// PyTorch's own Static Runtime, for `sr bench --against=pytorch-sr` only: a
// contestant timed beside ours in one process. LibTorch 1.13 compiles it into
// libtorch_cpu.so without shipping its headers, so this wrapper declares the
// two exported entry points it needs (the StaticModule constructor from a
// Module, and StaticModule::operator()). Nothing in the runtime uses it.
#ifndef STATIC_RUNTIME_TOOLS_SR_PYTORCH_SR_H_
#define STATIC_RUNTIME_TOOLS_SR_PYTORCH_SR_H_

#include <memory>
#include <string>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"
#include "options/options.h"
#include "torch/csrc/jit/api/module.h"

namespace static_runtime {
namespace sr {

class PyTorchStaticRuntime {
 public:
  // Prepares `module` (frozen first unless `is_frozen`), as
  // torch.jit._C._jit_to_static_module does, with the options PyTorch SR
  // shares with ours (enable_out_variant, optimize_memory, use_copy_variants,
  // use_maybe_copy_variants; never manage_output_tensors: its outputs would
  // need releasing). An error if PyTorch SR rejects it.
  static absl::StatusOr<std::unique_ptr<PyTorchStaticRuntime>> Create(
      const torch::jit::Module& module, bool is_frozen, const Options& options);

  // One call of the model (its cached runtime; not thread-safe). Throws what
  // PyTorch SR throws.
  c10::IValue operator()(const std::vector<c10::IValue>& args);

  // Calls the model once in a forked child process, before this process
  // does: where a run fails, PyTorch SR's cleanup can throw while the
  // exception unwinds, and std::terminate ends the process (LibTorch 1.13
  // on nn.Transformer). OK if the child's call returns or throws; an error
  // naming the signal if the child dies, or if it takes longer than
  // `limit_seconds` (it is then killed). The child calls on one intra-op
  // thread (a forked child has none of the parent's OpenMP workers).
  absl::Status SurvivesACall(const std::vector<c10::IValue>& args, int limit_seconds);

  // PyTorch's StaticModule has no exported destructor, so its memory is
  // never released; a benchmark creates one per process.
  ~PyTorchStaticRuntime() = default;

 private:
  explicit PyTorchStaticRuntime(void* module) : module_(module) {}
  void* module_;  // a torch::jit::StaticModule, leaked on purpose (see above)
};

}  // namespace sr
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_SR_PYTORCH_SR_H_
