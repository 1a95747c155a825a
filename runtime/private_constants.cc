#include "runtime/private_constants.h"

#include <utility>
#include <vector>

namespace static_runtime {
namespace {

at::Tensor TensorOverSameStorage(const at::Tensor& tensor) {
  if (!tensor.defined()) return tensor;
  // A shallow copy: a new TensorImpl sharing the storage and version counter
  // (as detach() makes, without autograd's view bookkeeping).
  c10::intrusive_ptr<c10::TensorImpl> impl = tensor.unsafeGetTensorImpl()->shallow_copy_and_detach(
      /*version_counter=*/tensor.unsafeGetTensorImpl()->version_counter(),
      /*allow_tensor_metadata_change=*/
      tensor.unsafeGetTensorImpl()->allow_tensor_metadata_change());
  at::Tensor copy(std::move(impl));
  if (tensor.requires_grad()) copy.set_requires_grad(true);
  return copy;
}

}  // namespace

c10::IValue PrivateConstant(const c10::IValue& constant) {
  if (constant.isTensor()) return TensorOverSameStorage(constant.toTensor());
  if (constant.isString()) return c10::IValue(constant.toStringRef());
  if (constant.isList()) {
    const c10::impl::GenericList list = constant.toList();
    c10::impl::GenericList copy(list.elementType());
    copy.reserve(list.size());
    for (const c10::IValue& element : list) copy.push_back(PrivateConstant(element));
    return copy;
  }
  if (constant.isGenericDict()) {
    const c10::impl::GenericDict dict = constant.toGenericDict();
    c10::impl::GenericDict copy(dict.keyType(), dict.valueType());
    copy.reserve(dict.size());
    for (const auto& entry : dict) {
      copy.insert(PrivateConstant(entry.key()), PrivateConstant(entry.value()));
    }
    return copy;
  }
  if (constant.isTuple()) {
    const c10::ivalue::Tuple& tuple = constant.toTupleRef();
    std::vector<c10::IValue> elements;
    elements.reserve(tuple.elements().size());
    for (const c10::IValue& element : tuple.elements()) {
      elements.push_back(PrivateConstant(element));
    }
    return c10::ivalue::Tuple::createNamed(std::move(elements), tuple.type());
  }
  return constant;
}

}  // namespace static_runtime
