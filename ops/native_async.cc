// Native kernels for asynchronous calls that InlineForks could not inline
// (passes/inline_forks.h: futures kept in a list, returned or passed on):
// prim::fork runs its subgraph at once, on the JIT interpreter, and gives a
// completed future (or one holding the error, which aten::wait raises, as
// the JIT raises a forked call's error at its wait); aten::wait gives the
// future's value.
#include <memory>

#include "ATen/core/ivalue.h"
#include "ops/registry.h"
#include "torch/csrc/jit/runtime/interpreter.h"

namespace static_runtime {
namespace {

Kernel Fork(const torch::jit::Node* node) {
  if (!node->hasAttribute(c10::attr::Subgraph)) return nullptr;
  const c10::TypePtr result_type =
      node->output()->type()->expectRef<c10::FutureType>().getElementType();
  auto code = std::make_shared<torch::jit::Code>(node->g(c10::attr::Subgraph), "forked call");
  return [code, result_type](NodeIO& io) {
    torch::jit::Stack stack;
    stack.reserve(io.num_inputs());
    for (size_t i = 0; i < io.num_inputs(); ++i) stack.push_back(io.Input(i));
    auto future = c10::make_intrusive<c10::ivalue::Future>(result_type);
    try {
      torch::jit::InterpreterState(*code).run(stack);
      future->markCompleted(std::move(stack.back()));
    } catch (...) {
      future->setError(std::current_exception());
    }
    io.Output(0) = std::move(future);
  };
}

void Wait(NodeIO& io) {
  const c10::intrusive_ptr<c10::ivalue::Future> future = io.Input(0).toFuture();
  future->wait();
  io.Output(0) = future->value();  // raises the forked call's error
}

const bool kRegistered = [] {
  RegisterNative("prim::fork", Fork);
  RegisterNative("aten::wait(Future(t) self) -> t", ForAnyNode(Wait));
  return true;
}();

}  // namespace
}  // namespace static_runtime
