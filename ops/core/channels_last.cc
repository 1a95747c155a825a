#include "ops/core/channels_last.h"

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/operators/operators.h"

namespace static_runtime {
namespace {

// Ops whose result's strides do not depend on their inputs' strides.
bool IgnoresInputLayout(const torch::jit::Node* node) {
  static const auto* const kOps =
      new absl::flat_hash_set<std::string>{"static_runtime::conv2d_fused",
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

bool MayBeChannelsLast(const torch::jit::Value* value, Memo& memo) {
  auto found = memo.find(value);
  if (found != memo.end()) return found->second;
  bool result = true;
  for (const torch::jit::Use& use : value->uses()) {
    const torch::jit::Node* user = use.user;
    if (IgnoresInputLayout(user)) continue;
    // A list input (aten::cat) is a ListConstruct, which is not listed: cat
    // only passes in the variadic form.
    if (!FollowsInputLayout(user) || user->outputs().size() != 1 ||
        !MayBeChannelsLast(user->output(), memo)) {
      result = false;
      break;
    }
  }
  memo[value] = result;
  return result;
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

bool MayBeChannelsLast(const torch::jit::Value* value) {
  Memo memo;
  return MayBeChannelsLast(value, memo);
}

bool ChannelsLastByChoice(const torch::jit::Value* value) {
  Memo memo;
  return ChannelsLastByChoice(value, memo);
}

}  // namespace static_runtime
