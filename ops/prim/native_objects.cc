// Native kernels for TorchScript objects and modules: prim::GetAttr and
// prim::SetAttr (a module's own attributes that freezing keeps because
// forward assigns them, and the attributes of TorchScript class objects),
// prim::CreateObject, and the profiling executor's prim::TypeCheck (its
// inputs, then whether every defined tensor matches the type the node
// expects, as the JIT interpreter's TYPECHECK instruction), prim::isinstance
// (the value's type against the node's), and a `with`
// statement's prim::Enter and prim::Exit (as the interpreter's ENTER and
// EXIT: the object's __enter__ and __exit__(None, None, None); an object
// entered by a run that then fails is exited by its RunScope). Attribute
// slots are resolved once, from the object's static class type; an object
// whose static type is not a class (an interface) falls back to the JIT.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "ATen/core/ivalue.h"
#include "ATen/core/jit_type.h"
#include "execution/run_scope.h"
#include "ops/core/registry.h"

namespace static_runtime {
namespace {

using torch::jit::Node;

// The slot of `node`'s attribute in its object input's class, if that class
// is known statically.
std::optional<size_t> AttributeSlot(const Node* node) {
  const auto class_type = node->input(0)->type()->cast<c10::ClassType>();
  if (class_type == nullptr) return std::nullopt;
  const std::string& name = node->s(c10::attr::name);
  if (!class_type->hasAttribute(name)) return std::nullopt;
  return class_type->getAttributeSlot(name);
}

KernelOffer GetAttr(const Node* node) {
  const std::optional<size_t> slot = AttributeSlot(node);
  if (!slot) return Decline();
  return [slot = *slot](NodeIO& io) { io.Output(0) = io.Input(0).toObjectRef().getSlot(slot); };
}

KernelOffer SetAttr(const Node* node) {
  const std::optional<size_t> slot = AttributeSlot(node);
  if (!slot) return Decline();
  return [slot = *slot](NodeIO& io) { io.Input(0).toObjectRef().setSlot(slot, io.Input(1)); };
}

KernelOffer CreateObject(const Node* node) {
  const auto class_type = node->output()->type()->cast<c10::ClassType>();
  if (class_type == nullptr || class_type->compilation_unit() == nullptr) return Decline();
  // The object keeps its class's compilation unit alive, as the JIT's do.
  const c10::StrongTypePtr type(class_type->compilation_unit(), class_type);
  const size_t num_slots = class_type->numAttributes();
  return [type, num_slots](NodeIO& io) {
    io.Output(0) = c10::ivalue::Object::create(type, num_slots);
  };
}

KernelOffer TypeCheck(const Node* node) {
  std::vector<c10::TensorTypePtr> expected;
  for (const c10::TypePtr& type : node->tys(c10::attr::types)) {
    c10::TensorTypePtr tensor_type = type->cast<c10::TensorType>();
    if (tensor_type == nullptr) return Decline();
    expected.push_back(std::move(tensor_type));
  }
  if (expected.size() != node->inputs().size() || node->outputs().size() != expected.size() + 1) {
    return Decline();
  }
  return [expected](NodeIO& io) {
    bool matched = true;
    for (size_t i = 0; i < expected.size(); ++i) {
      const at::Tensor& tensor = io.Input(i).toTensor();
      if (matched && tensor.defined() && !expected[i]->matchTensor(tensor)) matched = false;
      io.Output(i) = io.Input(i);
    }
    io.Output(expected.size()) = matched;
  };
}

// prim::isinstance: whether the value's type is a subtype of one of the
// node's types (an Optional or Union the script refines), as the
// interpreter decides it.
KernelOffer IsInstance(const Node* node) {
  if (!node->hasAttribute(c10::attr::types) || node->inputs().size() != 1 ||
      node->outputs().size() != 1) {
    return Decline();
  }
  std::vector<c10::TypePtr> types = node->tys(c10::attr::types);
  return [types = std::move(types)](NodeIO& io) {
    const c10::TypePtr type = io.Input(0).type();
    io.Output(0) = std::any_of(types.begin(), types.end(), [&](const c10::TypePtr& candidate) {
      return type->isSubtypeOf(*candidate);
    });
  };
}

// Whether the object's class is known statically and has `method`.
bool HasMethod(const Node* node, const std::string& method) {
  const auto class_type = node->input(0)->type()->cast<c10::ClassType>();
  return class_type != nullptr && class_type->findMethod(method) != nullptr;
}

KernelOffer Enter(const Node* node) {
  if (node->inputs().size() != 1 || node->outputs().size() != 1 || !HasMethod(node, "__enter__") ||
      !HasMethod(node, "__exit__")) {
    return Decline();
  }
  return [](NodeIO& io) {
    const c10::IValue& object = io.Input(0);
    // Entered before __enter__ runs: the interpreter exits an object whose
    // __enter__ threw.
    PushEnteredObject(object);
    torch::jit::Stack stack = {object};
    object.toObjectRef().type()->getMethod("__enter__").run(stack);
    io.Output(0) = stack.empty() ? c10::IValue() : std::move(stack.back());
  };
}

KernelOffer Exit(const Node* node) {
  if (node->inputs().size() != 1 || node->outputs().size() != 1 || !HasMethod(node, "__exit__")) {
    return Decline();
  }
  return [](NodeIO& io) {
    PopEnteredObject();
    io.Output(0) = CallExit(io.Input(0));
  };
}

}  // namespace

void RegisterNativeObjectsKernels(KernelRegistry& registry) {
  registry.Add(NativeNodeKind("prim::GetAttr", GetAttr));
  registry.Add(NativeNodeKind("prim::SetAttr", SetAttr));
  registry.Add(NativeNodeKind("prim::CreateObject", CreateObject));
  registry.Add(NativeNodeKind("prim::TypeCheck", TypeCheck));
  registry.Add(NativeNodeKind("prim::isinstance", IsInstance));
  registry.Add(NativeNodeKind("prim::Enter", Enter));
  registry.Add(NativeNodeKind("prim::Exit", Exit));
}

}  // namespace static_runtime
