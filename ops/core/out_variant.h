// Helpers for out-variant kernels: a kernel computes into the tensor already
// in its output slot when it may (the tensor has the dtype the op produces
// for these inputs and nothing else references it or its storage), resized
// in place; otherwise it fills the slot with a freshly allocated result. So a
// slot whose tensor is reused (across loop iterations, or memory the runtime
// plans) never sees its values change under someone else's feet, and a dtype
// change between calls can never silently cast a result.
#ifndef STATIC_RUNTIME_OPS_CORE_OUT_VARIANT_H_
#define STATIC_RUNTIME_OPS_CORE_OUT_VARIANT_H_

#include <utility>

#include "ATen/ATen.h"
#include "ATen/EmptyTensor.h"
#include "ATen/NativeFunctions.h"
#include "ops/core/direct_call.h"
#include "ops/core/registry.h"

namespace static_runtime {

// The tensor in `slot` if an out variant may write into it with `dtype`.
inline at::Tensor* ReusableOutput(c10::IValue& slot, at::ScalarType dtype) {
  if (!slot.isTensor()) return nullptr;
  at::Tensor& tensor = slot.toTensor();
  if (!PlainCpuTensor(tensor) || tensor.scalar_type() != dtype || tensor.use_count() != 1 ||
      !tensor.has_storage() || tensor.storage().use_count() != 1) {
    return nullptr;
  }
  // Shrink to nothing so the op resizes it without warning; the storage is
  // kept and grows only when a larger result needs it.
  tensor.unsafeGetTensorImpl()->set_sizes_contiguous({0});
  return &tensor;
}

// The tensor in output slot `i` if reusable for `dtype`, else a new empty
// tensor of `dtype` put into the slot: for ops with several outputs, each of
// which the runtime may or may not own.
inline at::Tensor& ReusableOrNewOutput(NodeIO& io, size_t i, at::ScalarType dtype) {
  if (at::Tensor* tensor = ReusableOutput(io.Output(i), dtype)) return *tensor;
  io.Output(i) = at::empty({0}, at::TensorOptions().dtype(dtype));
  return io.Output(i).toTensor();
}

// Output `i` as a contiguous tensor of `sizes` and `dtype` (the slot's own
// tensor when reusable, else a new one), for kernels that write its memory
// directly.
inline at::Tensor& ContiguousOutput(NodeIO& io, size_t i, at::ScalarType dtype,
                                    at::IntArrayRef sizes) {
  if (at::Tensor* out = ReusableOutput(io.Output(i), dtype)) {
    at::native::resize_(*out, sizes);
    return *out;
  }
  io.Output(i) =
      at::detail::empty_cpu(sizes, dtype, c10::nullopt, c10::nullopt, c10::nullopt, c10::nullopt);
  return io.Output(i).toTensor();
}

// Out forms call ATen's CPU kernels directly (at::cpu::), below the
// autograd dispatch keys, as an inference runtime does not record graphs.
template <typename Out>
inline bool WriteReusable(c10::IValue& slot, at::ScalarType dtype, Out& out) {
  at::Tensor* tensor = ReusableOutput(slot, dtype);
  if (tensor == nullptr) return false;
  at::AutoDispatchBelowADInplaceOrView below_autograd;
  out(*tensor);
  return true;
}

// Writes output `i`: out(tensor) into a reusable tensor of `dtype`; else,
// when CpuKernelsServe(io), out() into a new empty tensor (the out forms
// restride a tensor they resize to what the functional form returns, and
// some functional forms compute more: embedding_bag's auxiliary outputs);
// else functional() into the slot.
template <typename Functional, typename Out>
inline void WriteOutput(NodeIO& io, size_t i, at::ScalarType dtype, Functional&& functional,
                        Out&& out) {
  c10::IValue& slot = io.Output(i);
  if (WriteReusable(slot, dtype, out)) return;
  if (CpuKernelsServe(io)) {
    slot =
        at::detail::empty_cpu({0}, dtype, c10::nullopt, c10::nullopt, c10::nullopt, c10::nullopt);
    out(slot.toTensor());
  } else {
    slot = functional();
  }
}

// As WriteOutput, for ops whose `functional` calls ATen's at::cpu::
// functional form when it may (CpuKernelsServe): that form allocates its
// result directly, cheaper than resizing an empty tensor.
template <typename Functional, typename Out>
inline void WriteOutputOrCpuFunctional(NodeIO& io, size_t i, at::ScalarType dtype,
                                       Functional&& functional, Out&& out) {
  c10::IValue& slot = io.Output(i);
  if (!WriteReusable(slot, dtype, out)) slot = functional();
}

// The dtype rules of the kernel families.
inline at::ScalarType DefaultFloat() { return c10::typeMetaToScalarType(c10::get_default_dtype()); }
// Integer and bool inputs give the default float dtype (exp, sigmoid, ...).
inline at::ScalarType FloatResult(at::ScalarType input) {
  return at::isIntegralType(input, /*includeBool=*/true) ? DefaultFloat() : input;
}
// Reductions that sum: integers and bools accumulate in int64.
inline at::ScalarType SumResult(at::ScalarType input, const c10::IValue& dtype) {
  if (!dtype.isNone()) return dtype.toScalarType();
  return at::isIntegralType(input, /*includeBool=*/true) ? at::kLong : input;
}

// A per-thread tensor of `dtype` in `slot` (0 to kThreadScratchSlots - 1)
// for results a kernel computes and does not hand out (a norm's statistics):
// reused and grown from call to call, so valid only within one kernel call.
constexpr int kThreadScratchSlots = 5;
inline at::Tensor& ThreadScratch(int slot, at::ScalarType dtype) {
  thread_local at::Tensor scratch[kThreadScratchSlots];
  at::Tensor& tensor = scratch[slot];
  if (!tensor.defined() || tensor.scalar_type() != dtype) {
    tensor = at::empty({0}, at::TensorOptions().dtype(dtype));
  }
  return tensor;
}

// Shorthands for kernel bodies.
inline const at::Tensor& TensorArg(const NodeIO& io, size_t i) { return io.Input(i).toTensor(); }
inline c10::optional<at::Tensor> OptionalTensorArg(const NodeIO& io, size_t i) {
  return io.Input(i).toOptional<at::Tensor>();
}

// A `Tensor?[]` argument (index, index_put_): the graph may hold it as a list
// of tensors or a generic list, so elements are converted one by one.
inline c10::List<c10::optional<at::Tensor>> OptionalTensorListArg(const NodeIO& io, size_t i) {
  const c10::IValue& list = io.Input(i);
  if (list.isOptionalTensorList()) return list.toOptionalTensorList();
  c10::List<c10::optional<at::Tensor>> result;
  for (const c10::IValue& element : list.toListRef()) {
    result.push_back(element.isNone() ? c10::optional<at::Tensor>() : element.toTensor());
  }
  return result;
}

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CORE_OUT_VARIANT_H_
