// Options shared by graph preparation (passes/) and the runtime (runtime/),
// mirroring PyTorch Static Runtime's StaticModuleOptions, plus one switch per
// runtime-specific rewrite. ValidateOptions() rejects invalid combinations with
// a message naming the option.
#ifndef STATIC_RUNTIME_OPTIONS_OPTIONS_H_
#define STATIC_RUNTIME_OPTIONS_OPTIONS_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ATen/core/ivalue.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// A graph-level fusion pass run at the start of preparation with the sample
// inputs (PyTorch's slot for TensorExpr fusion).
using FusionHook =
    std::function<void(std::shared_ptr<torch::jit::Graph>&, const std::vector<c10::IValue>&)>;

struct Options {
  // Bind nodes to out-variant kernels that write into runtime-owned tensors.
  bool enable_out_variant = true;
  // Plan intermediate tensors into one reused arena (needs out variants).
  bool optimize_memory = true;
  // Also plan output tensors; the caller releases them explicitly.
  bool manage_output_tensors = false;
  // The tensors a run hands out (its outputs, and values that leave the
  // memory plan otherwise) share one allocation per run, sized from earlier
  // runs (memory/output_slab.h; needs optimize_memory): one allocation
  // instead of one per tensor. The slab is freed when the last of them is.
  bool group_output_allocations = true;
  // Replace view ops whose aliasing nobody observes by copying ops.
  bool use_copy_variants = true;
  // Replace aten::to by a variant that copies into runtime-owned memory.
  bool use_maybe_copy_variants = true;
  // Run `fusion_hook` (when given sample inputs) before the other passes.
  bool enable_tensorexpr_fusion = false;
  FusionHook fusion_hook;

  // Runtime-specific rewrites.
  bool use_variadic_ops = true;  // cat/stack of a list -> variadic node
  // split/chunk/unbind + ListUnpack -> one node whose outputs are fresh
  // copies the memory planner can place. Off by default: the views cost
  // ~0.1 us each, a copy a kernel call each (multi-output model: 14.5 us per
  // run with views, 17.4 us with copies).
  bool fuse_list_unpack = false;
  bool hoist_dict_lookups = true;  // constant-key lookups on input dicts
  // Loops with a small constant trip count and no break -> copies of their
  // body (passes/unroll_constant_loops.h), planned like the rest of the graph.
  bool unroll_constant_loops = true;
  // prim::fork calls run as tasks on LibTorch's inter-op thread pool (or
  // the launcher given to RunAsync), each forked subgraph prepared as a
  // static module of its own; aten::wait blocks on them. Off: forked calls
  // run in program order (one of the schedules the JIT allows; the fastest
  // with one thread): inlined where every future is only waited for, else
  // each at its fork, on the calling thread.
  bool parallel_forks = true;

  // Runs of float elementwise ops -> one static_runtime::fused_pointwise
  // node evaluated in one pass, bit for bit as ATen computes each op (see
  // passes/fuse_pointwise.h and ops/elementwise/pointwise_program.h); an
  // inference batch_norm read only by a relu -> one
  // static_runtime::batch_norm_relu node (passes/fuse_batch_norm_relu.h).
  bool enable_fusion = true;

  // Convolutions (conv1d, conv2d) and linears with constant weights (those of
  // a frozen model) run on oneDNN kernels with weights re-laid out once per
  // model, fused with a following activation (and, for conv2d, a residual
  // add); chains of convolutions keep their activations channels-last.
  // Transformer encoder layers (nn.TransformerEncoderLayer's eval op) run
  // their four matrix products on such kernels too, and frozen LSTMs, GRUs
  // and tanh RNNs compute their gates' sigmoid and tanh by faster functions
  // than ATen's (passes/prepack_weights.h). Results may differ from ATen's in the last bits
  // (another summation order, within each kernel's declared bound: see the README's tolerance
  // table). Freezing also folds batch norms and constant add/mul into
  // convolutions and linears (as torch.jit.freeze does; PyTorch's Static
  // Runtime does not). Turn it off to get ATen's own kernels, no folding and
  // the JIT's exact bits.
  bool prepack_weights = true;

  // Run every node under c10::InferenceMode (PyTorch Static Runtime does the
  // same): ops skip the Autograd and ADInplaceOrView dispatch keys. Tensors
  // the model creates are then inference tensors: they carry no autograd
  // history or version counter, and using them later in autograd (or
  // writing to them in place outside inference mode) is an error. Turn it
  // off when outputs must take part in autograd.
  bool inference_mode = true;
  // For tests: memory the planner recycles holds a NaN/garbage pattern (and
  // is poisoned under AddressSanitizer) from the node after a tensor's last
  // use until the next tensor there is made (memory/planner.h), so a use
  // after recycling gives a wrong answer or an ASan report, never the right
  // values by luck. Costs a pass over the arena per run and per node.
  bool poison_recycled_memory = false;
  // When a runtime's arena grows (a larger input shape), give the heap
  // memory freed meanwhile back to the system (glibc's malloc_trim: the
  // old arena, the tensors that outgrew it): otherwise malloc keeps it
  // resident. Costs one malloc_trim per growth (not measured alone), none
  // per run.
  bool release_freed_memory = true;

  // The input shapes whose plans each cache of a kernel keeps (oneDNN
  // primitives and the like, made for each input shape a kernel meets):
  // when a new shape needs another, the least recently used is dropped, to
  // be made again if its shape comes back. Bounds a model's memory when it
  // meets many shapes (sentence lengths, batch sizes); the weights
  // re-laid out for kernels do not depend on the shape and are kept.
  // At least 1.
  size_t shape_plans_per_kernel = 64;
};

// Every boolean option by its C++ name, with a one-line description: what
// the sr tool's flags and the Python package's keyword arguments are made of.
struct BoolOption {
  const char* name;
  bool Options::*member;
  const char* help;
};
const std::vector<BoolOption>& BoolOptions();
// The option named `name` (its C++ name), or nullptr.
const BoolOption* FindBoolOption(absl::string_view name);

// Checks that the combination of options is supported.
absl::Status ValidateOptions(const Options& options);

// One line listing every option that changes how a model is prepared or run,
// with its value (every BoolOptions() entry and enable_tensorexpr_fusion): for
// logs and the model cache's key.
std::string DescribeOptions(const Options& options);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPTIONS_OPTIONS_H_
