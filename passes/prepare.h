// The preparation pipeline: turns a Module, a Graph, IR text or a `.pt` file
// into a flat, optimized graph that passed CheckStaticRunnable, plus the input
// schema the runtime checks arguments against. Never mutates the caller's
// module or graph. Errors (bad options, unloadable input, a graph that is not
// statically runnable) come back as a Status naming the option or node.
//
// Order (as in PyTorch's Static Runtime):
//   [module: clone, eval, freeze unless frozen, frozen-graph optimizations,
//    take forward, drop self]
//   fusion hook (only with sample inputs), Inline, inline forks (with
//   parallel_forks off), ConstantPropagation, Canonicalize,
//   ConstantPropagation, RemoveTensorMutation, ConstantPropagation, the
//   cleanup passes, EliminateDeadCode, the runtime rewrites, the finalizing
//   passes, CheckStaticRunnable. The passes of each stage, in order and with
//   the option that turns each on, are passes/pass_table.cc's (listed in
//   docs/preparing.md, checked by //passes:pass_table_test).
#ifndef STATIC_RUNTIME_PASSES_PREPARE_H_
#define STATIC_RUNTIME_PASSES_PREPARE_H_

#include <memory>
#include <string>
#include <vector>

#include "ATen/core/function_schema.h"
#include "ATen/core/ivalue.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "options/options.h"
#include "torch/csrc/jit/api/module.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

struct PreparedGraph {
  std::shared_ptr<torch::jit::Graph> graph;
  // The inputs a caller passes (no `self`): names, types, defaults.
  c10::FunctionSchema schema;
  // The module object whose forward this is, when the prepared graph still
  // reads or writes its attributes (attributes forward assigns stay
  // attributes when frozen, as in torch.jit.freeze): then the graph's first
  // input is `self`, bound to this object on every run, and the schema's
  // arguments are the graph's other inputs. None otherwise: the graph's
  // inputs are the schema's arguments, one to one.
  c10::IValue self;
};

// `module.forward` of a clone of `module` (put in eval mode and frozen unless
// `is_frozen`; a shallow copy if frozen) after the frozen-graph optimizations
// torch.jit.freeze applies (dropout removed; with `optimize_numerics`, batch
// norm and constant add/mul folded into convolutions and linears, which
// changes the results' last bits), with the `self` input dropped when
// unused and kept, with the clone as PreparedGraph::self, when forward reads
// or writes attributes that freezing keeps (those it assigns). An overloaded forward
// (compiled as forward__0, forward__1, ...) gives its first overload; the
// schema is named after the method. Unless `parallel_forks`, forked calls
// are inlined before freezing (see Options::parallel_forks).
absl::StatusOr<PreparedGraph> FrozenForward(const torch::jit::Module& module, bool is_frozen,
                                            bool parallel_forks = true,
                                            bool optimize_numerics = true);

// `module.forward`, frozen first unless `is_frozen`; the numerics-changing
// folds of freezing only with `options.prepack_weights` (off, the JIT's
// exact bits).
absl::StatusOr<PreparedGraph> PrepareModule(const torch::jit::Module& module, bool is_frozen,
                                            const Options& options,
                                            const std::vector<c10::IValue>& sample_inputs = {});

// A copy of `graph`; the schema is derived from the graph's inputs.
absl::StatusOr<PreparedGraph> PrepareGraph(const std::shared_ptr<torch::jit::Graph>& graph,
                                           const Options& options,
                                           const std::vector<c10::IValue>& sample_inputs = {});

// Graph IR text (see ParseGraphIR).
absl::StatusOr<PreparedGraph> PrepareIR(absl::string_view ir, const Options& options,
                                        const std::vector<c10::IValue>& sample_inputs = {});

// A TorchScript archive saved with torch.jit.save (frozen or not).
absl::StatusOr<PreparedGraph> PrepareFile(const std::string& path, const Options& options,
                                          const std::vector<c10::IValue>& sample_inputs = {});

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_PREPARE_H_
