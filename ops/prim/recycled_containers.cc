#include "ops/prim/recycled_containers.h"

#include <utility>

namespace static_runtime {
namespace {

bool OnlyTheSlotHolds(const c10::IValue& slot) { return slot.use_count() == 1; }

}  // namespace

bool BuildsRecycledContainer(const torch::jit::Node* node) {
  return node->kind() == c10::prim::ListConstruct || node->kind() == c10::prim::DictConstruct;
}

void DropOrEmpty(c10::IValue& slot) {
  if (!OnlyTheSlotHolds(slot)) {
    slot = c10::IValue();
  } else if (slot.isList()) {
    c10::impl::GenericList list = std::move(slot).toList();
    list.clear();
    slot = std::move(list);
  } else if (slot.isGenericDict()) {
    c10::impl::GenericDict dict = std::move(slot).toGenericDict();
    dict.clear();
    slot = std::move(dict);
  } else {
    slot = c10::IValue();
  }
}

bool HoldsNothing(const c10::IValue& slot) {
  if (slot.isList()) return slot.toListRef().empty();
  if (slot.isGenericDict()) return slot.toGenericDict().empty();
  return slot.isNone();
}

c10::impl::GenericList ReusedList(c10::IValue& slot, const c10::TypePtr& element_type) {
  if (slot.isList() && OnlyTheSlotHolds(slot)) {
    c10::impl::GenericList list = std::move(slot).toList();
    list.clear();
    return list;
  }
  return c10::impl::GenericList(element_type);
}

c10::impl::GenericDict ReusedDict(c10::IValue& slot, const c10::TypePtr& key_type,
                                  const c10::TypePtr& value_type) {
  if (slot.isGenericDict() && OnlyTheSlotHolds(slot)) {
    c10::impl::GenericDict dict = std::move(slot).toGenericDict();
    dict.clear();
    return dict;
  }
  return c10::impl::GenericDict(key_type, value_type);
}

}  // namespace static_runtime
