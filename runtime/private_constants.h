// PrivateConstant: a runtime's own copy of one of its module's constants, so
// that runtimes serving one module on different threads never write to one
// object. Copying a constant IValue into a list, a dict, a tuple or a result
// changes its object's reference count; when every runtime's value table
// holds the module's very objects, two threads doing so move that count's
// cache line between their cores on every run (a dict built from constant
// string keys ran at 1.8x with two callers instead of 2x).
//
// The copy holds equal values: a tensor is a new TensorImpl over the same
// storage (the weights are not copied; the version counter, requires_grad
// and the metadata are the original's), a string a new string, a list, dict
// or tuple a new container (its type kept) of copies of its elements. Other
// values (numbers, None, devices, objects, functions, ...) are returned as
// they are: scalars are copied anyway, and an object stays shared so that
// its attributes are the module's.
#ifndef STATIC_RUNTIME_RUNTIME_PRIVATE_CONSTANTS_H_
#define STATIC_RUNTIME_RUNTIME_PRIVATE_CONSTANTS_H_

#include "ATen/core/ivalue.h"

namespace static_runtime {

c10::IValue PrivateConstant(const c10::IValue& constant);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_PRIVATE_CONSTANTS_H_
