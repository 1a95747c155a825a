#include "tools/sr/pytorch_sr.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <new>
#include <thread>
#include <unordered_map>
#include <vector>

#include "ATen/Parallel.h"
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

absl::Status PyTorchStaticRuntime::SurvivesACall(const std::vector<c10::IValue>& args,
                                                 int limit_seconds) {
  const pid_t child = fork();
  if (child < 0) return absl::InternalError(absl::StrCat("fork failed: ", std::strerror(errno)));
  if (child == 0) {
    // What LibTorch prints as it aborts is the parent's error to tell.
    const int null = open("/dev/null", O_WRONLY);
    if (null >= 0) dup2(null, STDERR_FILENO);
    // The parent's OpenMP workers do not exist in the child, and libgomp
    // would wait for them at its first parallel region: one thread here.
    at::set_num_threads(1);
    try {
      (*this)(args);
    } catch (...) {  // the parent sees the exception when it calls
    }
    _exit(0);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(limit_seconds);
  int status = 0;
  while (waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      return absl::DeadlineExceededError(
          absl::StrCat("PyTorch's Static Runtime took more than ", limit_seconds,
                       " s for one call of the model in a child process"));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (WIFSIGNALED(status)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "PyTorch's Static Runtime cannot run the model on these inputs: it ends the process "
        "(signal ",
        WTERMSIG(status), ", ", strsignal(WTERMSIG(status)),
        ", in a child process that called it once: LibTorch 1.13's cleanup after a failed run "
        "throws while unwinding)"));
  }
  return absl::OkStatus();
}

}  // namespace sr
}  // namespace static_runtime
