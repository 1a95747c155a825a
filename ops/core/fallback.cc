#include "ops/core/fallback.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "errors/exception_message.h"
#include "errors/status_from_exception.h"
#include "execution/run_scope.h"
#include "torch/csrc/jit/runtime/interpreter.h"
#include "torch/csrc/jit/runtime/operator.h"

namespace static_runtime {
namespace {

using torch::jit::Stack;

// One stack per thread, reused across calls so a call does not allocate it.
Stack& ThreadStack() {
  thread_local Stack stack;
  return stack;
}

void PushInputs(const NodeIO& io, Stack& stack) {
  stack.clear();
  stack.reserve(io.num_inputs());
  for (size_t i = 0; i < io.num_inputs(); ++i) stack.push_back(io.Input(i));
}

void PopOutputs(NodeIO& io, Stack& stack) {
  TORCH_CHECK(stack.size() == io.num_outputs(), "the JIT produced ", stack.size(), " values for ",
              io.num_outputs(), " outputs");
  for (size_t i = 0; i < io.num_outputs(); ++i) {
    io.Output(i) = std::move(stack[i]);
  }
  stack.clear();
}

// `node` alone in a graph of its own, with the same input and output types.
std::shared_ptr<torch::jit::Graph> SingleNodeGraph(const torch::jit::Node* node) {
  auto graph = std::make_shared<torch::jit::Graph>();
  std::unordered_map<const torch::jit::Value*, torch::jit::Value*> inputs;
  for (const torch::jit::Value* input : node->inputs()) {
    if (inputs.count(input) == 0) {
      inputs[input] = graph->addInput()->setType(input->type());
    }
  }
  torch::jit::Node* clone =
      graph->createClone(const_cast<torch::jit::Node*>(node),
                         [&inputs](torch::jit::Value* v) { return inputs.at(v); });
  graph->insertNode(clone);
  for (torch::jit::Value* output : clone->outputs()) graph->registerOutput(output);
  return graph;
}

// Node kinds the interpreter runs as instructions of its own (its emitNode)
// for which LibTorch also registers an operator whose Operation only throws
// ("warn is implemented directly in the interpreter"). They run on the
// interpreter, as a one-node graph, like the instructions with no operator
// at all (prim::isinstance, prim::TupleSlice, ...). (aten::warn of a node
// scripted from a source file has a native kernel, ops/prim/native_misc.cc.)
bool IsInterpreterInstruction(c10::Symbol kind) {
  return kind == c10::aten::warn || kind == c10::aten::wait;
}

// Instructions the interpreter runs only as part of their whole graph: they
// need its state beyond one node (prim::Exit exits the object prim::Enter
// entered in the same run; prim::BailOut and prim::Guard fall back to the
// profiled graph; prim::profile and prim::profile_ivalue call the profiler's
// callback), or crash on their own (prim::fork). The runtime runs them
// natively or refuses the model when it is prepared.
bool RunsOnlyInItsGraph(c10::Symbol kind) {
  static const auto* const kinds = new absl::flat_hash_set<c10::Symbol>{
      c10::prim::Enter,   c10::prim::Exit,           c10::prim::BailOut, c10::prim::Guard,
      c10::prim::profile, c10::prim::profile_ivalue, c10::prim::fork,
  };
  return kinds->contains(kind);
}

}  // namespace

absl::StatusOr<Kernel> MakeFallbackKernel(const torch::jit::Node* node) {
  if (!node->blocks().empty()) {
    return absl::UnimplementedError(
        absl::StrCat(node->kind().toQualString(), " has sub-blocks and no kernel"));
  }
  if (RunsOnlyInItsGraph(node->kind())) {
    return absl::UnimplementedError(absl::StrCat(
        "the JIT interpreter runs ", node->kind().toQualString(),
        " only as part of its whole graph, and this node has no kernel of its own (inputs: ",
        absl::StrJoin(node->inputs(), ", ",
                      [](std::string* out, const torch::jit::Value* input) {
                        out->append(input->type()->repr_str());
                      }),
        ")"));
  }
  try {
    const torch::jit::Operator* op =
        IsInterpreterInstruction(node->kind()) ? nullptr : node->maybeOperator();
    if (op != nullptr) {
      torch::jit::Operation operation = op->getOperation(node);
      return Kernel([operation](NodeIO& io) mutable {
        Stack& stack = ThreadStack();
        PushInputs(io, stack);
        try {
          operation(stack);
          PopOutputs(io, stack);
        } catch (...) {
          // The per-thread stack must not keep the inputs of a failed call.
          stack.clear();
          throw;
        }
      });
    }
    // The single-node graph takes each distinct input once.
    std::vector<size_t> distinct_inputs;
    for (size_t i = 0; i < node->inputs().size(); ++i) {
      bool seen = false;
      for (size_t j = 0; j < i; ++j) seen = seen || node->input(j) == node->input(i);
      if (!seen) distinct_inputs.push_back(i);
    }
    auto code = std::make_shared<torch::jit::Code>(SingleNodeGraph(node),
                                                   std::string(node->kind().toQualString()));
    std::optional<int64_t> warn_id;
    if (node->kind() == c10::aten::warn && node->hasAttribute(c10::attr::warn_id)) {
      warn_id = node->i(c10::attr::warn_id);
    }
    return Kernel([code, distinct_inputs, warn_id](NodeIO& io) {
      if (warn_id.has_value() && !ShouldWarn(*warn_id)) return;
      Stack stack;
      stack.reserve(distinct_inputs.size());
      for (size_t i : distinct_inputs) stack.push_back(io.Input(i));
      torch::jit::InterpreterState(*code).run(stack);
      PopOutputs(io, stack);
    });
  } catch (const std::exception& e) {
    return StatusFromException(
        e, absl::StrCat("the JIT cannot run ", node->kind().toQualString(), " on its own: "),
        absl::StatusCode::kUnimplemented);
  }
}

}  // namespace static_runtime
