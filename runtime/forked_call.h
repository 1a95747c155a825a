// The kernel of prim::fork. A forked subgraph the runtime can prepare
// becomes a StaticModule of its own (the parent's options, outputs never
// managed: they go to the parent), prepared and planned once; each call
// takes a StaticRuntime from the fork's RuntimePool, so concurrent calls
// (forks of one node in a loop, runs of the parent on several threads)
// never share an arena. A subgraph it cannot prepare runs on the JIT
// interpreter. With Options::parallel_forks a call runs as a forked task
// (ops/prim/native_async.h: on the inter-op pool or the launcher of the run);
// without, at once, on the calling thread. A failing call's error (naming
// the node and source line inside the fork when the runtime ran it) comes
// out of the aten::wait on its future.
#ifndef STATIC_RUNTIME_RUNTIME_FORKED_CALL_H_
#define STATIC_RUNTIME_RUNTIME_FORKED_CALL_H_

#include "ops/core/registry.h"
#include "options/options.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// nullptr if `fork` has no subgraph. A subgraph marked with
// PreparedSubgraphAttribute (passes/prepared_forks.h: a compiled package's) is
// bound as it is, without preparing it again.
KernelOffer MakeForkedCallKernel(const torch::jit::Node* fork, const Options& options);

// The options a forked subgraph is prepared with, given the parent's.
Options ForkedCallOptions(const Options& options);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_FORKED_CALL_H_
