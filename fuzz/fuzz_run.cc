#include "fuzz/fuzz_run.h"

#include "ATen/ATen.h"
#include "ir/graph_util.h"
#include "runtime/static_runtime.h"

namespace static_runtime {
namespace fuzz {
namespace {

constexpr int64_t kMaxTripCount = 64;

std::optional<c10::IValue> SmallValue(const c10::TypePtr& type) {
  switch (type->kind()) {
    case c10::TypeKind::TensorType:
      return c10::IValue(at::arange(6, at::kFloat).reshape({2, 3}) / 4 - 0.5);
    case c10::TypeKind::IntType:
      return c10::IValue(int64_t{2});
    case c10::TypeKind::FloatType:
    case c10::TypeKind::NumberType:
      return c10::IValue(0.5);
    case c10::TypeKind::BoolType:
      return c10::IValue(true);
    case c10::TypeKind::StringType:
      return c10::IValue(std::string("a"));
    case c10::TypeKind::NoneType:
    case c10::TypeKind::OptionalType:
      return c10::IValue();
    case c10::TypeKind::ListType: {
      const c10::TypePtr element = type->containedType(0);
      std::optional<c10::IValue> item = SmallValue(element);
      if (!item) return std::nullopt;
      c10::impl::GenericList list(element);
      list.push_back(*item);
      list.push_back(*item);
      return c10::IValue(list);
    }
    default:
      return std::nullopt;
  }
}

}  // namespace

std::optional<std::vector<c10::IValue>> SmallInputs(const c10::FunctionSchema& schema) {
  std::vector<c10::IValue> inputs;
  for (const c10::Argument& argument : schema.arguments()) {
    if (argument.name() == "self") continue;
    std::optional<c10::IValue> value = SmallValue(argument.type());
    if (!value) return std::nullopt;
    inputs.push_back(*std::move(value));
  }
  return inputs;
}

bool Bounded(torch::jit::Graph& graph) {
  for (const torch::jit::Node* node : AllNodes(graph.block())) {
    if (node->kind() != c10::prim::Loop) continue;
    const torch::jit::Value* trip_count = node->input(0);
    const bool is_input = trip_count->node()->kind() == c10::prim::Param;
    const c10::optional<c10::IValue> constant = torch::jit::toIValue(trip_count);
    const bool small = constant && constant->isInt() && constant->toInt() <= kMaxTripCount;
    if (!is_input && !small) return false;
  }
  return true;
}

void RunPrepared(const StaticModule::Ptr& module) {
  if (!Bounded(*module->graph())) return;
  std::optional<std::vector<c10::IValue>> inputs = SmallInputs(module->schema());
  if (!inputs) return;
  StaticRuntime runtime(module);
  for (int run = 0; run < 2; ++run) {
    // Errors are statuses; the runtime must stay usable after them.
    (void)runtime.Run(*inputs);
  }
}

}  // namespace fuzz
}  // namespace static_runtime
