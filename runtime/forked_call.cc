#include "runtime/forked_call.h"

#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "errors/status_macros.h"
#include "glog/logging.h"
#include "ops/prim/native_async.h"
#include "passes/prepared_forks.h"
#include "runtime/module_state.h"
#include "runtime/pool.h"
#include "runtime/static_module.h"
#include "torch/csrc/jit/runtime/interpreter.h"

namespace static_runtime {
namespace {

// Runtimes a fork keeps for calls running at once (more wait for one).
constexpr size_t kMaxConcurrentCalls = 64;

using Call = std::function<absl::StatusOr<c10::IValue>(std::vector<c10::IValue> args)>;

// The forked subgraph as a call: on a static module of its own if it can be
// prepared (or is already), else on the JIT interpreter.
Call MakeCall(const std::shared_ptr<torch::jit::Graph>& subgraph, bool prepared,
              const Options& options) {
  const Options call_options = ForkedCallOptions(options);
  absl::StatusOr<StaticModule::Ptr> module = [&]() -> absl::StatusOr<StaticModule::Ptr> {
    if (!prepared) return StaticModule::FromGraph(subgraph, call_options);
    ASSIGN_OR_RETURN(PreparedGraph checked, AsPrepared(subgraph));
    return ModuleFromPrepared(std::move(checked), call_options);
  }();
  if (module.ok()) {
    auto pool = std::make_shared<RuntimePool>(*std::move(module), kMaxConcurrentCalls);
    return [pool](std::vector<c10::IValue> args) -> absl::StatusOr<c10::IValue> {
      absl::StatusOr<c10::IValue> result = pool->Run(args);
      if (!result.ok()) {
        return absl::Status(result.status().code(),
                            absl::StrCat("forked call: ", result.status().message()));
      }
      return result;
    };
  }
  VLOG(1) << "static_runtime: forked call left to the JIT interpreter: " << module.status();
  auto code = std::make_shared<torch::jit::Code>(subgraph, "forked call");
  return [code](std::vector<c10::IValue> stack) -> absl::StatusOr<c10::IValue> {
    torch::jit::InterpreterState(*code).run(stack);
    return std::move(stack.back());
  };
}

}  // namespace

Options ForkedCallOptions(const Options& options) {
  Options call_options = options;
  call_options.manage_output_tensors = false;
  return call_options;
}

KernelOffer MakeForkedCallKernel(const torch::jit::Node* fork, const Options& options) {
  if (!fork->hasAttribute(c10::attr::Subgraph)) return Decline();
  Call call = MakeCall(fork->g(c10::attr::Subgraph),
                       fork->hasAttribute(PreparedSubgraphAttribute()), options);
  const c10::TypePtr result_type =
      fork->output()->type()->expectRef<c10::FutureType>().getElementType();
  return [call = std::move(call), result_type, parallel = options.parallel_forks](NodeIO& io) {
    std::vector<c10::IValue> args;
    args.reserve(io.num_inputs());
    for (size_t i = 0; i < io.num_inputs(); ++i) args.push_back(io.Input(i));
    auto future = c10::make_intrusive<c10::ivalue::Future>(result_type);
    if (parallel) {
      ops::LaunchForked(future,
                        [call, args = std::move(args)]() mutable { return call(std::move(args)); });
    } else {
      ops::CompleteNow(future, [&call, &args] { return call(std::move(args)); });
    }
    io.Output(0) = std::move(future);
  };
}

}  // namespace static_runtime
