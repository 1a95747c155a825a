#include "runtime/value_layout.h"

#include "absl/strings/str_cat.h"
#include "errors/status_from_exception.h"
#include "glog/logging.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

void CollectConstants(const torch::jit::Block* block,
                      std::vector<const torch::jit::Value*>& constants) {
  for (const torch::jit::Node* node : block->nodes()) {
    if (node->kind() == c10::prim::Constant) constants.push_back(node->output());
    for (const torch::jit::Block* sub_block : node->blocks()) {
      CollectConstants(sub_block, constants);
    }
  }
}

void CollectOthers(const torch::jit::Block* block, std::vector<const torch::jit::Value*>& values) {
  for (const torch::jit::Node* node : block->nodes()) {
    if (node->kind() == c10::prim::Constant) continue;
    for (const torch::jit::Value* output : node->outputs()) values.push_back(output);
    for (const torch::jit::Block* sub_block : node->blocks()) {
      for (const torch::jit::Value* param : sub_block->inputs()) values.push_back(param);
      CollectOthers(sub_block, values);
    }
  }
}

}  // namespace

absl::StatusOr<ValueLayout> ValueLayout::Build(const torch::jit::Graph& graph, size_t max_slots) {
  std::vector<const torch::jit::Value*> order(graph.inputs().begin(), graph.inputs().end());
  std::vector<const torch::jit::Value*> constants;
  CollectConstants(graph.block(), constants);
  order.insert(order.end(), constants.begin(), constants.end());
  CollectOthers(graph.block(), order);
  if (order.size() > max_slots) {
    return absl::ResourceExhaustedError(absl::StrCat("the graph has ", order.size(),
                                                     " values, more than the ", max_slots,
                                                     " value slots the runtime can index"));
  }
  ValueLayout layout;
  layout.num_inputs_ = graph.inputs().size();
  layout.num_slots_ = order.size();
  layout.slots_.reserve(order.size());
  for (size_t i = 0; i < order.size(); ++i) {
    layout.slots_.emplace(order[i], static_cast<ValueIndex>(i));
  }
  for (const torch::jit::Value* constant : constants) {
    const std::string what =
        absl::StrCat("constant %", constant->debugName(), " of type ", constant->type()->repr_str(),
                     " cannot be held by the runtime: ");
    c10::optional<c10::IValue> value;
    try {
      value = torch::jit::toIValue(constant);
    } catch (const std::exception& e) {
      return StatusFromException(e, what, absl::StatusCode::kInvalidArgument);
    }
    if (!value) return absl::InvalidArgumentError(absl::StrCat(what, "it has no value"));
    layout.constants_.push_back(*std::move(value));
  }
  return layout;
}

ValueIndex ValueLayout::SlotOf(const torch::jit::Value* value) const {
  auto found = slots_.find(value);
  CHECK(found != slots_.end()) << "value %" << value->debugName() << " is not in the layout";
  return found->second;
}

}  // namespace static_runtime
