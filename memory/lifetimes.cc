#include "memory/lifetimes.h"

#include "absl/container/flat_hash_map.h"
#include "ir/graph_util.h"
#include "torch/csrc/jit/ir/alias_analysis.h"

namespace static_runtime {
namespace memory {
namespace {

using torch::jit::Node;
using torch::jit::Value;

// The node of `block` containing `node` (itself if it is in `block`).
const Node* AncestorIn(const Node* node, const torch::jit::Block* block) {
  while (node->owningBlock() != block) node = node->owningBlock()->owningNode();
  return node;
}

// Every node of the graph, blocks included, numbered in execution order
// (a node before the nodes of its blocks, a block before the next), with
// the last number inside each node (its own for a node without blocks).
struct Numbering {
  absl::flat_hash_map<const Node*, size_t> index;
  absl::flat_hash_map<const Node*, size_t> last_inside;
  std::vector<Node*> in_order;

  void Add(torch::jit::Block* block) {
    for (Node* node : block->nodes()) {
      index.emplace(node, in_order.size());
      in_order.push_back(node);
      for (torch::jit::Block* sub_block : node->blocks()) Add(sub_block);
      last_inside.emplace(node, in_order.size() - 1);
    }
  }
};

// Whether any of `values` may contain an alias of `value`; true when alias
// analysis cannot tell.
bool MayContainAlias(const torch::jit::AliasDb& alias_db, at::ArrayRef<Value*> values,
                     Value* value) {
  for (Value* other : values) {
    if (!MayHoldTensor(other->type())) continue;
    try {
      if (alias_db.mayContainAlias(other, value)) return true;
    } catch (const std::exception&) {
      return true;
    }
  }
  return false;
}

// Whether the node's schema lets an output alias an input (view ops, and
// ops like contiguous that may return their input).
bool ReturnsAnAlias(const Node* node) {
  const c10::FunctionSchema* schema = node->maybeSchema();
  if (schema == nullptr) return true;
  for (const c10::Argument& result : schema->returns()) {
    if (result.alias_info() != nullptr) return true;
  }
  return false;
}

// Whether the node's schema says it only reads its input `offset`: the
// argument has no alias annotation, so the op neither writes it nor
// returns or stores an alias of it.
bool SchemaSaysOnlyReads(const Node* node, size_t offset) {
  const c10::FunctionSchema* schema = node->maybeSchema();
  if (schema == nullptr || schema->is_vararg() || offset >= schema->arguments().size()) {
    return false;
  }
  return schema->arguments()[offset].alias_info() == nullptr;
}

// Whether every use of `value` is the graph's return, or a top-level tuple or
// list construction used only by the graph's return.
bool OnlyReturned(const Value* value, const torch::jit::Block* top) {
  for (const torch::jit::Use& use : value->uses()) {
    const Node* user = use.user;
    if (user == top->return_node()) continue;
    const bool container =
        user->kind() == c10::prim::TupleConstruct || user->kind() == c10::prim::ListConstruct;
    if (!container || user->owningBlock() != top) return false;
    for (const torch::jit::Use& container_use : user->output()->uses()) {
      if (container_use.user != top->return_node()) return false;
    }
  }
  return true;
}

}  // namespace

LifetimeAnalysis AnalyzeLifetimes(const std::shared_ptr<torch::jit::Graph>& graph,
                                  const std::function<bool(const Node*)>& is_candidate,
                                  const std::function<bool(const Node*)>& only_reads_inputs) {
  torch::jit::AliasDb alias_db(graph);
  torch::jit::Block* top = graph->block();
  Numbering numbering;
  numbering.Add(top);
  const size_t end = numbering.in_order.size();  // the graph's return

  auto reads_only = [&](const Node* node) { return only_reads_inputs && only_reads_inputs(node); };
  LifetimeAnalysis analysis;
  for (Node* node : numbering.in_order) {
    if (!is_candidate(node)) continue;
    const torch::jit::Block* block = node->owningBlock();
    // The JIT's alias analysis knows nothing of the outputs of a variadic
    // node it treats conservatively; they are fresh when the node only reads
    // its inputs, and stay so through users whose schemas say so.
    const bool fresh_despite_alias_db = reads_only(node);
    for (Value* value : node->outputs()) {
      if (value->type()->kind() != c10::TypeKind::TensorType) continue;
      // Stored where the run does not own it (an object's attribute, a
      // list or dict the caller passed): it outlives the run.
      bool manageable =
          !ReturnsAnAlias(node) &&
          (fresh_despite_alias_db || !MayContainAlias(alias_db, graph->inputs(), value));
      size_t last = numbering.index.at(node);
      for (const torch::jit::Use& use : value->uses()) {
        Node* user = use.user;
        if (!manageable) break;
        // A graph output or a yielded value; read by a forked call, which
        // may run until its wait, or after the run if nothing waits; or
        // stored in an object.
        if (user->kind() == c10::prim::Return || user->kind() == c10::prim::fork ||
            user->kind() == c10::prim::SetAttr) {
          manageable = false;
          break;
        }
        manageable = reads_only(user) ||
                     (fresh_despite_alias_db && SchemaSaysOnlyReads(user, use.offset)) ||
                     (!MayContainAlias(alias_db, user->outputs(), value) &&
                      !alias_db.writesToAlias(user, {value}));
        // A use inside a block of a node of the value's own block may come
        // at any time while that node runs (in any iteration of a loop).
        last = std::max(last, numbering.last_inside.at(AncestorIn(user, block)));
      }
      const ManagedValue lifetime{value, numbering.index.at(node), last};
      if (manageable) {
        analysis.managed.push_back(lifetime);
      } else if (block == top && !ReturnsAnAlias(node) && OnlyReturned(value, top)) {
        analysis.outputs.push_back({value, lifetime.first, end});
      } else {
        analysis.rejected.push_back(value);
      }
    }
  }
  return analysis;
}

}  // namespace memory
}  // namespace static_runtime
