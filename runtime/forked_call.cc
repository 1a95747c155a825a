#include "runtime/forked_call.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "glog/logging.h"
#include "ops/native_async.h"
#include "runtime/pool.h"
#include "runtime/static_module.h"

namespace static_runtime {
namespace {

// Runtimes a fork keeps for calls running at once (more wait for one).
constexpr size_t kMaxConcurrentCalls = 64;

}  // namespace

Kernel MakeForkedCallKernel(const torch::jit::Node* fork, const Options& options) {
  if (!fork->hasAttribute(c10::attr::Subgraph)) return nullptr;
  Options call_options = options;
  call_options.manage_output_tensors = false;
  absl::StatusOr<StaticModule::Ptr> module =
      StaticModule::FromGraph(fork->g(c10::attr::Subgraph), call_options);
  if (!module.ok()) {
    VLOG(1) << "static_runtime: forked call left to the JIT interpreter: " << module.status();
    return nullptr;
  }
  auto pool = std::make_shared<RuntimePool>(*std::move(module), kMaxConcurrentCalls);
  const c10::TypePtr result_type =
      fork->output()->type()->expectRef<c10::FutureType>().getElementType();
  return [pool, result_type](NodeIO& io) {
    std::vector<c10::IValue> args;
    args.reserve(io.num_inputs());
    for (size_t i = 0; i < io.num_inputs(); ++i) args.push_back(io.Input(i));
    auto future = c10::make_intrusive<c10::ivalue::Future>(result_type);
    ops::LaunchForked(future, [pool, args = std::move(args)]() -> absl::StatusOr<c10::IValue> {
      absl::StatusOr<c10::IValue> result = pool->Run(args);
      if (!result.ok()) {
        return absl::Status(result.status().code(),
                            absl::StrCat("forked call: ", result.status().message()));
      }
      return result;
    });
    io.Output(0) = std::move(future);
  };
}

}  // namespace static_runtime
