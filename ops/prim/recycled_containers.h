// Containers a node builds on every run (prim::ListConstruct,
// prim::DictConstruct), reused from one run to the next
// when nothing but the node's own value slot holds them: the runtime empties
// such a container in place at the end of a run instead of dropping it
// (DropOrEmpty), and the node's kernel refills it (Reused*) instead of
// allocating a new one. A container anything else holds (the caller, a
// container it was put in, a forked task) is dropped from the slot and never
// written again, so a caller never sees a container change after a run.
// Tuples are not reused: an unnamed tuple caches the type of the elements it
// was made with, which a refill could make stale.
#ifndef STATIC_RUNTIME_OPS_PRIM_RECYCLED_CONTAINERS_H_
#define STATIC_RUNTIME_OPS_PRIM_RECYCLED_CONTAINERS_H_

#include "ATen/core/ivalue.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// Whether `node` builds a container its kernel reuses (see above).
bool BuildsRecycledContainer(const torch::jit::Node* node);

// The end of a run for a recycled container's slot: a list or dict only the
// slot holds is emptied in place (its elements dropped, its storage kept);
// anything else is dropped (the slot becomes None).
void DropOrEmpty(c10::IValue& slot);

// Whether `slot` holds nothing: None, or a list or dict DropOrEmpty emptied.
bool HoldsNothing(const c10::IValue& slot);

// What a kernel builds into: the list (dict) in `slot`, emptied, if only the
// slot holds one; else a new one with these element types.
c10::impl::GenericList ReusedList(c10::IValue& slot, const c10::TypePtr& element_type);
c10::impl::GenericDict ReusedDict(c10::IValue& slot, const c10::TypePtr& key_type,
                                  const c10::TypePtr& value_type);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_PRIM_RECYCLED_CONTAINERS_H_
