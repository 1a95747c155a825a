#include "ops/core/channels_last.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/operators/operators.h"

namespace static_runtime {
namespace {

// Ops whose result's strides do not depend on their inputs' strides.
bool IgnoresInputLayout(const torch::jit::Node* node) {
  static const auto* const kOps =
      new absl::flat_hash_set<std::string>{"static_runtime::conv2d_fused",
                                           "static_runtime::copy_contiguous",
                                           "static_runtime::copy_flatten",
                                           "static_runtime::copy_permute",
                                           "static_runtime::copy_reshape",
                                           "aten::flatten",
                                           "aten::reshape",
                                           "aten::size",
                                           "aten::dim"};
  return kOps->contains(node->kind().toQualString());
}

// Ops whose result follows their tensor inputs' layout.
bool FollowsInputLayout(const torch::jit::Node* node) {
  static const auto* const kOps =
      new absl::flat_hash_set<std::string>{"aten::relu",
                                           "aten::hardtanh",
                                           "aten::hardswish",
                                           "aten::hardsigmoid",
                                           "aten::sigmoid",
                                           "aten::tanh",
                                           "aten::silu",
                                           "aten::gelu",
                                           "aten::clamp",
                                           "aten::add",
                                           "aten::sub",
                                           "aten::mul",
                                           "aten::div",
                                           "aten::dropout",
                                           "aten::batch_norm",
                                           "static_runtime::batch_norm_relu",
                                           "aten::max_pool2d",
                                           "aten::avg_pool2d",
                                           "aten::adaptive_avg_pool2d",
                                           "aten::adaptive_max_pool2d",
                                           "aten::mean",
                                           "aten::cat",
                                           "static_runtime::variadic_cat"};
  return kOps->contains(node->kind().toQualString());
}

using Memo = absl::flat_hash_map<const torch::jit::Value*, bool>;

bool IsTensorList(const torch::jit::Value* value) {
  return value->type()->isSubtypeOf(*c10::ListType::ofTensors());
}

// Whether a use of the tensor list `list` lets its tensors be channels-last:
// an append to it (whose result, the list again, is unused), its length, or
// aten::cat, whose result is then reached. Anything else (an element read
// out, the list returned or carried by a loop) may see their layout.
bool ListUseFollowsLayout(const torch::jit::Use& use, std::vector<const torch::jit::Value*>& next) {
  const torch::jit::Node* user = use.user;
  if (user->kind() == c10::aten::append && use.offset == 0) return !user->output()->hasUses();
  if (user->kind() == c10::aten::len) return true;
  if (user->kind() == c10::aten::cat && use.offset == 0) {
    next.push_back(user->output());
    return true;
  }
  return false;
}

bool ChannelsLastByChoice(const torch::jit::Value* value, Memo& memo) {
  auto found = memo.find(value);
  if (found != memo.end()) return found->second;
  const torch::jit::Node* producer = value->node();
  bool result = producer->kind() == ops::kConv2dFused;
  if (!result && FollowsInputLayout(producer)) {
    result = true;
    for (const torch::jit::Value* input : producer->inputs()) {
      if (input->type()->isSubtypeOf(*c10::ListType::ofTensors())) {
        // A list's tensors (aten::cat's) may come from anywhere.
        result = false;
        break;
      }
      if (input->type()->kind() != c10::TypeKind::TensorType ||
          input->node()->kind() == c10::prim::Constant) {
        continue;
      }
      if (!ChannelsLastByChoice(input, memo)) {
        result = false;
        break;
      }
    }
  }
  memo[value] = result;
  return result;
}

}  // namespace

// A search from `start` through layout-following ops (and the tensor lists
// it is put in) for a use where the layout can be seen.
bool MayBeChannelsLast(const torch::jit::Value* start) {
  std::vector<const torch::jit::Value*> todo = {start};
  absl::flat_hash_set<const torch::jit::Value*> seen = {start};
  std::vector<const torch::jit::Value*> next;
  while (!todo.empty()) {
    const torch::jit::Value* value = todo.back();
    todo.pop_back();
    next.clear();
    for (const torch::jit::Use& use : value->uses()) {
      const torch::jit::Node* user = use.user;
      if (IsTensorList(value)) {
        if (!ListUseFollowsLayout(use, next)) return false;
      } else if (IgnoresInputLayout(user)) {
        continue;
      } else if (user->kind() == c10::prim::ListConstruct && IsTensorList(user->output())) {
        next.push_back(user->output());
      } else if (user->kind() == c10::aten::append && use.offset == 1) {
        next.push_back(user->input(0));
      } else if (FollowsInputLayout(user) && user->outputs().size() == 1) {
        next.push_back(user->output());
      } else {
        return false;
      }
    }
    for (const torch::jit::Value* reached : next) {
      if (seen.insert(reached).second) todo.push_back(reached);
    }
  }
  return true;
}

bool ChannelsLastByChoice(const torch::jit::Value* value) {
  Memo memo;
  return ChannelsLastByChoice(value, memo);
}

}  // namespace static_runtime
