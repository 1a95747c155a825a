// Which values of a graph may share memory with a graph input: for the
// static-runnability check, which rejects graphs that write to their inputs.
//
// AliasDb answers this too, but too coarsely: it puts the graph inputs and
// every tensor stored in a list into one wildcard set, so after
// `y = relu(x); ys = y.split(1)` a write to y "may write to x" and a valid
// model is rejected (found by //fuzz:random_graph_test). This analysis follows
// the operators' alias annotations instead and tracks, per value, the inputs
// its own memory may belong to ("aliases") and, for containers, the inputs
// their elements may belong to ("contains"):
//   - an output with no alias annotation is fresh (as for AliasDb);
//   - an annotated output aliases the inputs of the annotated arguments that
//     share its alias set (a container output built from a tensor argument,
//     like split's, contains them instead), and a wildcard output aliases
//     whatever its arguments alias or contain;
//   - constructing a list/tuple/dict makes it contain its elements' inputs;
//     unpacking or indexing one (unpack_dict included) aliases what it
//     contains;
//   - a write that stores an argument into a container (append, insert,
//     __setitem__, extend) makes the container contain that argument's inputs;
//   - If and Loop outputs take what any block yields (Loops to a fixpoint);
//   - any other operator without annotations-by-schema is conservative: each
//     output aliases and contains everything its inputs alias or contain;
//   - to (and its rewrite maybe_copy_to), contiguous, reshape, reshape_as
//     and flatten count as copies: they
//     return their argument only when it already has the requested dtype,
//     layout or shape and copy otherwise, so a write after them reaches an
//     input only in the case where the JIT writes to that input too. Models
//     like `x = x.float(); x /= 255` (a uint8 image) must not be rejected.
#ifndef STATIC_RUNTIME_PASSES_INPUT_ALIASES_H_
#define STATIC_RUNTIME_PASSES_INPUT_ALIASES_H_

#include <memory>
#include <set>

#include "absl/container/node_hash_map.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Indices of graph inputs.
using InputSet = std::set<size_t>;

class InputAliases {
 public:
  explicit InputAliases(const std::shared_ptr<torch::jit::Graph>& graph);

  // The graph inputs whose memory `value` may be (part of).
  InputSet Aliases(const torch::jit::Value* value) const;
  // For containers: the graph inputs its elements may be (part of).
  InputSet Contains(const torch::jit::Value* value) const;

 private:
  struct Sets {
    InputSet aliases;
    InputSet contains;
  };
  // Returns true if anything changed.
  bool Merge(const torch::jit::Value* value, const InputSet& aliases, const InputSet& contains);
  bool VisitBlock(torch::jit::Block* block);
  bool VisitNode(torch::jit::Node* node);
  bool VisitLoop(torch::jit::Node* node);
  bool VisitSchemaNode(torch::jit::Node* node, const c10::FunctionSchema& schema);
  const Sets& Get(const torch::jit::Value* value) const;

  // Node-based: references returned by Get stay valid while Merge inserts.
  absl::node_hash_map<const torch::jit::Value*, Sets> sets_;
};

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_INPUT_ALIASES_H_
