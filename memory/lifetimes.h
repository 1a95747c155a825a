// Lifetimes of the tensors a run may manage. A candidate (a tensor output of
// a node, in any block, whose kernel writes fresh, runtime-owned memory) is
// managed only if nothing outside the run can observe it: it is not a graph
// output, no node makes an alias of it or stores it in a container or an
// object, it escapes to no graph input (per the JIT's alias analysis: a list
// the caller passed), no node writes to it, and no block yields it (an
// If's result, a Loop's carried value). Outside loop bodies, two kinds of
// holders are allowed, and the value lives until their last uses: views
// (a node whose schema returns an alias of the value and writes nothing,
// and views of views) that are only read, and private lists, made by
// prim::ListConstruct in the value's own block and used only to append to
// (in that block) and by stack, cat or len (the value's other users must
// then say in their schemas that they only read it). (In a loop body, the
// next iteration writes the value while the previous one's holders may
// still hold it.)
//
// Nodes are numbered in execution order through all blocks (a node before its blocks' nodes); a
// lifetime runs from the defining node to its last use, where a use inside a block counts as
// lasting until the end of the node of the value's own block that holds it (a value read in a loop
// body lives until the loop ends). A value of a loop body lives within one iteration, which every
// iteration repeats at the same numbers; values of an If's two branches never overlap.
#ifndef STATIC_RUNTIME_MEMORY_LIFETIMES_H_
#define STATIC_RUNTIME_MEMORY_LIFETIMES_H_

#include <functional>
#include <memory>
#include <vector>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {
namespace memory {

struct ManagedValue {
  const torch::jit::Value* value = nullptr;
  size_t first = 0;  // number of the defining node
  size_t last = 0;   // number of the last use (see above)
};

struct LifetimeAnalysis {
  std::vector<ManagedValue> managed;  // in definition order
  // Candidates that are graph outputs and nothing else: returned directly, or
  // as elements of a tuple or list built only to be returned. Their
  // lifetime ends at the graph's return.
  std::vector<ManagedValue> outputs;
  std::vector<const torch::jit::Value*> rejected;  // candidates that escape or alias
  // The candidates of the top-level block that are not managed and that
  // the node makes afresh (its schema returns no alias) and no node stores
  // in an object: graph outputs (including `outputs`) and values that leave
  // the plan otherwise. Each run makes them anew and they may outlive it.
  std::vector<const torch::jit::Value*> escaping;  // in definition order
  // The views and private lists that hold managed values, each once: the
  // runtime drops them before it recycles the managed values' memory (a
  // tensor still held is not reused).
  std::vector<const torch::jit::Value*> holders;
};

// `is_candidate(node)`: the node's tensor outputs are fresh, runtime-owned
// tensors (an out-variant kernel).
// `only_reads_inputs(node)`, when given: the node neither writes its inputs
// nor returns or stores an alias of them, and its outputs are fresh,
// whatever the JIT's alias analysis assumes (a node with a variadic schema,
// which it treats conservatively). Such a node's outputs are managed when
// every user is such a node or has a schema saying it only reads that
// argument (no alias annotation: it neither writes it nor aliases it).
LifetimeAnalysis AnalyzeLifetimes(
    const std::shared_ptr<torch::jit::Graph>& graph,
    const std::function<bool(const torch::jit::Node*)>& is_candidate,
    const std::function<bool(const torch::jit::Node*)>& only_reads_inputs = nullptr);

}  // namespace memory
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_MEMORY_LIFETIMES_H_
