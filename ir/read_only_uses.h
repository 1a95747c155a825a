// What a node does with one of its inputs, by its schema, and whether the
// run only reads a value. A value is only read by the nodes of the run that
// use it when no node writes it, returns it (from the graph or a block),
// stores it in a container, an object or a forked task, or passes it to a
// node whose schema does not say it only reads it; views of it (IsView)
// must be only read in turn. An element of a list the run builds for itself
// (ElementsOnlyRead) is only read too. Such a value can never be observed
// outside the run, so a kernel may make it in a form the caller could tell
// apart (ops/tensor/strided_view: a view of a caller's tensor without autograd's
// view tracking). The result of a branch of an if is only read when the
// if's result is. Conservative: any other node without a schema (loops,
// containers, fusion groups) counts as holding the value. The predicates on
// nodes and lists are memory/lifetimes' too.
#ifndef STATIC_RUNTIME_IR_READ_ONLY_USES_H_
#define STATIC_RUNTIME_IR_READ_ONLY_USES_H_

#include <cstddef>

#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Whether ATen's implementation of the node's op may return its first
// argument itself although the schema says its result is fresh: dropout and
// its variants when not training or with p = 0, type_as and the _cast_
// ops when the type already matches.
bool MayReturnItsInput(const torch::jit::Node* node);

// Whether an output may alias an input: the schema says so (view ops, and
// ops like contiguous that may return their input), or MayReturnItsInput;
// true without a schema.
bool ReturnsAnAlias(const torch::jit::Node* node);

// Whether `node` makes a view of an argument (or may return it): its schema
// returns one tensor that aliases an argument (or MayReturnItsInput), and
// it writes nothing.
bool IsView(const torch::jit::Node* node);

// Whether the node's schema says it only reads its input `offset`: the
// argument has no alias annotation (and is not what MayReturnItsInput
// returns), so the op neither writes it nor
// returns or stores an alias of it.
bool SchemaSaysOnlyReads(const torch::jit::Node* node, size_t offset);

// Whether the node's schema says it stores its input `offset` where other
// values can reach it (an argument annotated `(a -> *)`: `aten::_set_item`
// into a dict or list, `aten::append`, `aten::insert`).
bool SchemaSaysStores(const torch::jit::Node* node, size_t offset);

// The list `use` puts its value into as an element (the prim::ListConstruct
// it is an input of, or the list of an aten::append appending it), or null.
const torch::jit::Value* ListReceiving(const torch::jit::Use& use);

// Whether `list` is made by prim::ListConstruct and only appended to (the
// append's result unused) and read by ops that read its elements and return
// fresh tensors or a count (stack, cat, len): its elements are then only read.
bool ElementsOnlyRead(const torch::jit::Value* list);

// `value` is a tensor and every use of it (and of the views made of it) only
// reads it, as said above.
bool OnlyReadWithinRun(const torch::jit::Value* value);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_IR_READ_ONLY_USES_H_
