#include "memory/lifetimes.h"

#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "ir/graph_util.h"
#include "ir/read_only_uses.h"
#include "torch/csrc/jit/ir/alias_analysis.h"

namespace static_runtime {
namespace memory {
namespace {

using torch::jit::Node;
using torch::jit::Value;

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

// Whether a node stores `value` in an object's attribute.
bool StoredInObject(const Value* value) {
  return std::any_of(value->uses().begin(), value->uses().end(), [](const torch::jit::Use& use) {
    return use.user->kind() == c10::prim::SetAttr;
  });
}

// The last use of `view` (a view made in `block` or a block inside it) and
// of the views made of it, in `block`'s numbering; nullopt when one of
// them may outlive the run (returned, yielded, forked, stored in an object
// or a container) or is written.
std::optional<size_t> ViewsLastUse(Value* view, const torch::jit::Block* block,
                                   const torch::jit::AliasDb& alias_db, const Numbering& numbering,
                                   std::vector<const Value*>* views) {
  views->push_back(view);
  size_t last = 0;
  for (const torch::jit::Use& use : view->uses()) {
    Node* user = use.user;
    if (user->kind() == c10::prim::Return || user->kind() == c10::prim::fork ||
        user->kind() == c10::prim::SetAttr) {
      return std::nullopt;
    }
    if (IsView(user)) {
      const std::optional<size_t> nested =
          ViewsLastUse(user->output(), block, alias_db, numbering, views);
      if (!nested) return std::nullopt;
      last = std::max(last, *nested);
    } else if (MayContainAlias(alias_db, user->outputs(), view) ||
               alias_db.writesToAlias(user, {view})) {
      return std::nullopt;
    }
    last = std::max(last, numbering.last_inside.at(AncestorIn(user, block)));
  }
  return last;
}

// Whether `list` is a list the run builds for itself in `block` and only
// reads the elements of (ElementsOnlyRead). Its elements then live until
// its last use, `last` (a use inside a block of a
// node of `block` lasts until that node's end); nothing else can reach
// them.
bool IsPrivateList(const Value* list, const torch::jit::Block* block, const Numbering& numbering,
                   size_t* last) {
  if (list->node()->owningBlock() != block || !ElementsOnlyRead(list)) return false;
  for (const torch::jit::Use& use : list->uses()) {
    *last = std::max(*last, numbering.last_inside.at(AncestorIn(use.user, block)));
  }
  return true;
}

// The private list (IsPrivateList) in `block` that `use` puts its value
// (defined in `block`) into, as an element of its construction or an
// appended one, or null; `last` grows to the list's last use.
const Value* PrivateListOf(const torch::jit::Use& use, const torch::jit::Block* block,
                           const Numbering& numbering, size_t* last) {
  if (use.user->owningBlock() != block) return nullptr;
  const Value* list = ListReceiving(use);
  return list != nullptr && IsPrivateList(list, block, numbering, last) ? list : nullptr;
}

// Whether `block` is (inside) a loop's body. A value there is written again
// by the next iteration, while the views and lists of the previous one may
// still hold it.
bool InLoopBody(const torch::jit::Block* block) {
  for (const Node* owner = block->owningNode(); owner != nullptr;
       owner = owner->owningBlock()->owningNode()) {
    if (owner->kind() == c10::prim::Loop) return true;
  }
  return false;
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
  absl::flat_hash_set<const Value*> holder_set;  // analysis.holders, each once
  for (Node* node : numbering.in_order) {
    if (!is_candidate(node)) continue;
    const torch::jit::Block* block = node->owningBlock();
    // The JIT's alias analysis knows nothing of the outputs of a variadic
    // node it treats conservatively; they are fresh when the node only reads
    // its inputs, and stay so through users whose schemas say so.
    const bool fresh_despite_alias_db = reads_only(node);
    for (Value* value : node->outputs()) {
      if (value->type()->kind() != c10::TypeKind::TensorType) continue;
      size_t last = numbering.index.at(node);
      // Views and lists that hold the value's memory (outside loop bodies).
      const bool may_be_held = !InLoopBody(block);
      std::vector<const Value*> holders;
      // Put into lists the run builds for itself and reads (which the
      // JIT's alias analysis counts as escaping anywhere): alive until the
      // lists' last uses. `into_list[i]`: use i is such a put.
      std::vector<bool> into_list(value->uses().size(), false);
      for (size_t i = 0; may_be_held && i < value->uses().size(); ++i) {
        const Value* list = PrivateListOf(value->uses()[i], block, numbering, &last);
        if (list != nullptr) holders.push_back(list);
        into_list[i] = list != nullptr;
      }
      const bool in_private_list = !holders.empty();
      // Stored where the run does not own it (an object's attribute, a
      // list or dict the caller passed): it outlives the run. (Every other
      // use is checked below.)
      bool manageable =
          !ReturnsAnAlias(node) && (fresh_despite_alias_db || in_private_list ||
                                    !MayContainAlias(alias_db, graph->inputs(), value));
      for (size_t i = 0; i < value->uses().size() && manageable; ++i) {
        if (into_list[i]) continue;
        const torch::jit::Use& use = value->uses()[i];
        Node* user = use.user;
        // A graph output or a yielded value; read by a forked call, which
        // may run until its wait, or after the run if nothing waits; or
        // stored in an object, or in a container by an op that returns
        // nothing (`d[k] = v`: alias analysis sees no output holding it).
        if (user->kind() == c10::prim::Return || user->kind() == c10::prim::fork ||
            user->kind() == c10::prim::SetAttr || SchemaSaysStores(user, use.offset)) {
          manageable = false;
          break;
        }
        // Views of it (reshape, transpose, select, ...) read its memory until
        // their own last uses.
        if (may_be_held && !in_private_list && IsView(user)) {
          const std::optional<size_t> views_last =
              ViewsLastUse(user->output(), block, alias_db, numbering, &holders);
          manageable = views_last.has_value();
          if (manageable) {
            last = std::max({last, *views_last, numbering.last_inside.at(AncestorIn(user, block))});
          }
          continue;
        }
        // Once in a private list, the alias analysis sees the value as
        // possibly anywhere: only users whose schemas say they read it.
        manageable = reads_only(user) ||
                     ((fresh_despite_alias_db || in_private_list) &&
                      SchemaSaysOnlyReads(user, use.offset)) ||
                     (!in_private_list && !MayContainAlias(alias_db, user->outputs(), value) &&
                      !alias_db.writesToAlias(user, {value}));
        // A use inside a block of a node of the value's own block may come
        // at any time while that node runs (in any iteration of a loop).
        last = std::max(last, numbering.last_inside.at(AncestorIn(user, block)));
      }
      const ManagedValue lifetime{value, numbering.index.at(node), last};
      if (manageable) {
        analysis.managed.push_back(lifetime);
        for (const Value* holder : holders) {
          if (holder_set.insert(holder).second) analysis.holders.push_back(holder);
        }
      } else {
        const bool fresh_in_top = block == top && !ReturnsAnAlias(node);
        if (fresh_in_top && !StoredInObject(value)) analysis.escaping.push_back(value);
        if (fresh_in_top && OnlyReturned(value, top)) {
          analysis.outputs.push_back({value, lifetime.first, end});
        } else {
          analysis.rejected.push_back(value);
        }
      }
    }
  }
  return analysis;
}

}  // namespace memory
}  // namespace static_runtime
