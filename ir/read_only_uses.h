// Whether a value is only read by the nodes of the run that use it: no
// node writes it, returns it (from the graph or a block), stores it in a
// container, an object or a forked task, or passes it to a node whose
// schema does not say it only reads it; views of it (a node whose schema
// returns an alias of it and writes nothing) must be only read in turn. An
// element of a list the run builds for itself (prim::ListConstruct, then
// only appended to and read by cat, stack or len) is only read too.
// Such a value can never be observed outside the run, so a kernel may make
// it in a form the caller could tell apart (ops/strided_view: a view of a
// caller's tensor without autograd's view tracking). Conservative: a node
// without a schema (control flow, containers, fusion groups) counts as
// holding the value.
#ifndef STATIC_RUNTIME_IR_READ_ONLY_USES_H_
#define STATIC_RUNTIME_IR_READ_ONLY_USES_H_

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// `value` is a tensor and every use of it (and of the views made of it) only
// reads it, as said above.
bool OnlyReadWithinRun(const torch::jit::Value* value);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_IR_READ_ONLY_USES_H_
