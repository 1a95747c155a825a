#include "passes/unroll_constant_loops.h"

#include <vector>

#include "absl/container/flat_hash_map.h"
#include "ir/graph_util.h"
#include "passes/fold_built_lists.h"
#include "passes/loop_trip_count.h"
#include "torch/csrc/jit/passes/constant_pooling.h"
#include "torch/csrc/jit/passes/constant_propagation.h"
#include "torch/csrc/jit/passes/dead_code_elimination.h"
#include "torch/csrc/jit/passes/peephole_list_idioms.h"

namespace static_runtime {
namespace {

using torch::jit::Block;
using torch::jit::Node;
using torch::jit::Value;

// Unrolling a loop can make another one's trip count constant (an inner
// `range(i)`); each round unrolls what the previous one made constant.
constexpr int kMaxRounds = 4;

// Loops in `block` and its nested blocks, inner loops before the loops that
// hold them.
void CollectLoopsInnermostFirst(Block* block, std::vector<Node*>* loops) {
  for (Node* node : block->nodes()) {
    for (Block* sub_block : node->blocks()) CollectLoopsInnermostFirst(sub_block, loops);
    if (node->kind() == c10::prim::Loop) loops->push_back(node);
  }
}

// How many times `loop` runs, when it qualifies for unrolling (see the header).
c10::optional<int64_t> UnrollableTrips(Node* loop) {
  const c10::optional<int64_t> known = ConstantTripCount(loop, kMaxUnrolledTrips);
  if (!known) return c10::nullopt;
  const int64_t trips = *known;
  const std::vector<Node*> body_nodes = AllNodes(loop->blocks()[0]);
  if (trips * static_cast<int64_t>(body_nodes.size()) > kMaxUnrolledNodes) return c10::nullopt;
  for (const Node* node : body_nodes) {
    // A fork's subgraph would be shared by its copies.
    if (node->kind() == c10::prim::fork || node->hasAttribute(c10::attr::Subgraph)) {
      return c10::nullopt;
    }
  }
  return trips;
}

// Replaces `loop` by `trips` copies of its body, inserted where it was.
void Unroll(Node* loop, int64_t trips) {
  torch::jit::Graph* graph = loop->owningGraph();
  Block* body = loop->blocks()[0];
  torch::jit::WithInsertPoint insert_before_loop(loop);
  std::vector<Value*> carried(loop->inputs().begin() + 2, loop->inputs().end());
  for (int64_t trip = 0; trip < trips; ++trip) {
    absl::flat_hash_map<Value*, Value*> copy_of;
    copy_of[body->inputs()[0]] = graph->insertConstant(trip);
    for (size_t i = 0; i < carried.size(); ++i) copy_of[body->inputs()[i + 1]] = carried[i];
    auto mapped = [&copy_of](Value* value) {
      auto it = copy_of.find(value);
      return it == copy_of.end() ? value : it->second;
    };
    for (Node* node : body->nodes()) {
      Node* copy = graph->insertNode(graph->createClone(node, mapped));
      for (size_t i = 0; i < node->outputs().size(); ++i) {
        copy_of[node->output(i)] = copy->output(i);
      }
    }
    for (size_t i = 0; i < carried.size(); ++i) carried[i] = mapped(body->outputs()[i + 1]);
  }
  for (size_t i = 0; i < carried.size(); ++i) loop->output(i)->replaceAllUsesWith(carried[i]);
  loop->destroy();
}

// Folds what unrolling exposed: constant trip counts, `len` and `l[i]` of
// lists whose contents are known (passes/fold_built_lists and LibTorch's
// peephole for unmutated lists), `str(i)`, and drops what became dead. Returns true
// if the graph changed (dead code aside).
bool Fold(std::shared_ptr<torch::jit::Graph> graph) {
  bool changed = torch::jit::ConstantPropagation(graph);
  changed |= FoldBuiltLists(graph);
  changed |= torch::jit::PeepholeOptimizeListIdioms(graph);
  changed |= torch::jit::ConstantPropagation(graph);
  torch::jit::EliminateDeadCode(graph);
  return changed;
}

}  // namespace

bool UnrollConstantLoops(const std::shared_ptr<torch::jit::Graph>& graph) {
  std::vector<Node*> loops;
  CollectLoopsInnermostFirst(graph->block(), &loops);
  if (loops.empty()) return false;
  const bool folded = Fold(graph);  // a loop over a list literal: its len
  bool unrolled_any = false;
  for (int round = 0; round < kMaxRounds; ++round) {
    loops.clear();
    CollectLoopsInnermostFirst(graph->block(), &loops);
    bool unrolled = false;
    for (Node* loop : loops) {
      if (c10::optional<int64_t> trips = UnrollableTrips(loop)) {
        Unroll(loop, *trips);
        unrolled = true;
      }
    }
    if (!unrolled) break;
    unrolled_any = true;
    Fold(graph);
  }
  // The copies' constants (each trip's iteration number, folded values),
  // one of each.
  if (unrolled_any) torch::jit::ConstantPooling(graph);
  return folded || unrolled_any;
}

}  // namespace static_runtime
