#include "passes/loop_trip_count.h"

#include <algorithm>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "torch/csrc/jit/ir/constants.h"

namespace static_runtime {
namespace {

using torch::jit::Block;
using torch::jit::Node;
using torch::jit::Value;

bool IsScalar(const Value* value) {
  const c10::TypeKind kind = value->type()->kind();
  return kind == c10::TypeKind::IntType || kind == c10::TypeKind::FloatType ||
         kind == c10::TypeKind::BoolType;
}

// A pure operation on numbers and bools that can run before the model does.
bool Evaluable(const Node* node) {
  if (!node->blocks().empty() || node->hasSideEffects() || node->isNondeterministic() ||
      node->maybeOperator() == nullptr) {
    return false;
  }
  return std::all_of(node->inputs().begin(), node->inputs().end(), IsScalar) &&
         std::all_of(node->outputs().begin(), node->outputs().end(), IsScalar);
}

// The body nodes the continue condition depends on, and the carried values
// (by index) it reads, each starting as a constant. False when the condition
// depends on anything else.
bool ConditionSlice(const Node* loop, absl::flat_hash_set<const Node*>* nodes,
                    std::vector<size_t>* carried) {
  const Block* body = loop->blocks()[0];
  std::vector<const Value*> work = {body->outputs()[0]};
  absl::flat_hash_set<const Value*> seen;
  while (!work.empty()) {
    const Value* value = work.back();
    work.pop_back();
    if (!seen.insert(value).second || torch::jit::toIValue(value)) continue;
    const Node* producer = value->node();
    if (producer == body->param_node()) {
      if (value->offset() == 0) continue;  // the iteration number
      const size_t k = value->offset() - 1;
      if (!torch::jit::toIValue(loop->input(k + 2))) return false;
      carried->push_back(k);
      work.push_back(body->outputs()[k + 1]);
      continue;
    }
    if (producer->owningBlock() != body || !Evaluable(producer)) return false;
    nodes->insert(producer);
    for (const Value* input : producer->inputs()) work.push_back(input);
  }
  return true;
}

}  // namespace

c10::optional<int64_t> ConstantTripCount(const Node* loop, int64_t limit) {
  const c10::optional<c10::IValue> max_trips = torch::jit::toIValue(loop->input(0));
  const c10::optional<c10::IValue> initial = torch::jit::toIValue(loop->input(1));
  if (!max_trips || !max_trips->isInt() || !initial || !initial->isBool()) return c10::nullopt;
  const int64_t most = std::max<int64_t>(max_trips->toInt(), 0);
  if (!initial->toBool() || most == 0) return 0;
  const Block* body = loop->blocks()[0];
  const c10::optional<c10::IValue> condition = torch::jit::toIValue(body->outputs()[0]);
  if (condition && condition->isBool() && condition->toBool()) {
    return most <= limit ? c10::optional<int64_t>(most) : c10::nullopt;
  }
  absl::flat_hash_set<const Node*> slice;
  std::vector<size_t> carried_read;
  if (!ConditionSlice(loop, &slice, &carried_read)) return c10::nullopt;
  // Each trip: the slice's nodes in body order on the iteration number and
  // the carried values, then the condition and the next carried values.
  std::vector<c10::IValue> carried(loop->inputs().size() - 2);
  for (size_t k : carried_read) carried[k] = *torch::jit::toIValue(loop->input(k + 2));
  absl::flat_hash_map<const Value*, c10::IValue> env;
  auto value_of = [&env](const Value* value) {
    const c10::optional<c10::IValue> constant = torch::jit::toIValue(value);
    return constant ? *constant : env.at(value);
  };
  for (int64_t trip = 0; trip < most && trip < limit; ++trip) {
    env.clear();
    env[body->inputs()[0]] = trip;
    for (size_t k : carried_read) env[body->inputs()[k + 1]] = carried[k];
    for (const Node* node : body->nodes()) {
      if (!slice.contains(node)) continue;
      torch::jit::Stack stack;
      for (const Value* input : node->inputs()) stack.push_back(value_of(input));
      try {
        node->getOperation()(stack);
      } catch (const std::exception&) {
        return c10::nullopt;  // it fails at run time: leave it to fail there
      }
      if (stack.size() != node->outputs().size()) return c10::nullopt;
      for (size_t i = 0; i < stack.size(); ++i) env[node->output(i)] = std::move(stack[i]);
    }
    const c10::IValue go_on = value_of(body->outputs()[0]);
    if (!go_on.isBool()) return c10::nullopt;
    if (!go_on.toBool()) return trip + 1;
    for (size_t k : carried_read) carried[k] = value_of(body->outputs()[k + 1]);
  }
  return most <= limit ? c10::optional<int64_t>(most) : c10::nullopt;
}

}  // namespace static_runtime
