#include "tools/sr/pytorch_sr.h"

#include <new>
#include <unordered_map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "errors/exception_message.h"
#include "errors/status_from_exception.h"

// Declarations of the symbols libtorch_cpu.so 1.13 exports (nm -DC shows
// them); only what this file calls. The object is constructed into storage
// larger than the real class (whose size is not published).
namespace torch {
namespace jit {

struct StaticModuleOptions {
  bool enable_out_variant;
  bool optimize_memory;
  bool manage_output_tensors;
  bool use_copy_variants;
  bool use_maybe_copy_variants;
  bool enable_tensorexpr_fusion;
};

class StaticModule {
 public:
  StaticModule(const Module& module, bool is_frozen, const StaticModuleOptions& options,
               std::vector<c10::IValue> sample_inputs);
  c10::IValue operator()(const std::vector<c10::IValue>& args,
                         const std::unordered_map<std::string, c10::IValue>& kwargs);
};

}  // namespace jit
}  // namespace torch

namespace static_runtime {
namespace sr {
namespace {

// Far more than sizeof(torch::jit::StaticModule) in 1.13 (a few hundred
// bytes of members: options, graph, schema, value groups, node infos).
constexpr size_t kStorageBytes = 64 * 1024;

}  // namespace

absl::StatusOr<std::unique_ptr<PyTorchStaticRuntime>> PyTorchStaticRuntime::Create(
    const torch::jit::Module& module, bool is_frozen, const Options& options) {
  const torch::jit::StaticModuleOptions pytorch_options{
      options.enable_out_variant,      options.optimize_memory,
      /*manage_output_tensors=*/false, options.use_copy_variants,
      options.use_maybe_copy_variants, /*enable_tensorexpr_fusion=*/false};
  void* storage = ::operator new(kStorageBytes, std::align_val_t(64));
  try {
    new (storage) torch::jit::StaticModule(module, is_frozen, pytorch_options, {});
  } catch (const std::exception& e) {
    // Its members are destroyed by the failed constructor; only the storage is ours.
    ::operator delete(storage, std::align_val_t(64));
    return StatusFromException(
        e, "PyTorch's Static Runtime rejects the model: ", absl::StatusCode::kInvalidArgument);
  }
  // Never freed (see the header), but kept reachable, so that leak checkers
  // (--config=asan) do not report it.
  static auto* const kKeptModules = new std::vector<void*>();
  static absl::Mutex mutex;
  {
    absl::MutexLock lock(&mutex);
    kKeptModules->push_back(storage);
  }
  return std::unique_ptr<PyTorchStaticRuntime>(new PyTorchStaticRuntime(storage));
}

c10::IValue PyTorchStaticRuntime::operator()(const std::vector<c10::IValue>& args) {
  static const std::unordered_map<std::string, c10::IValue> kNoKwargs;
  return (*static_cast<torch::jit::StaticModule*>(module_))(args, kNoKwargs);
}

}  // namespace sr
}  // namespace static_runtime
