// Two runtimes of one module share no object either may write or count
// references of: each holds its own copy of every constant (a tensor's
// TensorImpl, a list, a dict, a tuple, a string; the weights' storage and
// TorchScript objects are shared by design, runtime/private_constants.h),
// for every corpus model and for constants that are containers of tensors.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "runtime/corpus_module.h"
#include "runtime/runtime_state.h"
#include "runtime/static_runtime.h"

namespace static_runtime {
namespace {

// The first object `a` and `b` share (as a path), or "" if they share none
// but storages and TorchScript objects.
std::string SharedObject(const c10::IValue& a, const c10::IValue& b, const std::string& path) {
  if (a.tagKind() != b.tagKind()) return absl::StrCat(path, ": of different kinds");
  if (a.isTensor()) {
    const at::Tensor& x = a.toTensor();
    const at::Tensor& y = b.toTensor();
    if (x.defined() && x.unsafeGetTensorImpl() == y.unsafeGetTensorImpl()) {
      return absl::StrCat(path, " (a tensor of shape ", c10::str(x.sizes()), ")");
    }
    return "";
  }
  if (a.isString() || a.isList() || a.isGenericDict() || a.isTuple()) {
    // One heap object (isSameIdentity compares strings by value).
    if (a.internalToPointer() == b.internalToPointer())
      return absl::StrCat(path, " (", a.tagKind(), " ", c10::str(a), ")");
  }
  if (a.isList()) {
    const c10::List<c10::IValue> x = a.toList(), y = b.toList();
    for (size_t i = 0; i < x.size(); ++i) {
      const std::string shared = SharedObject(x.get(i), y.get(i), absl::StrCat(path, "[", i, "]"));
      if (!shared.empty()) return shared;
    }
  } else if (a.isTuple()) {
    const auto& x = a.toTupleRef().elements();
    const auto& y = b.toTupleRef().elements();
    for (size_t i = 0; i < x.size(); ++i) {
      const std::string shared = SharedObject(x[i], y[i], absl::StrCat(path, "[", i, "]"));
      if (!shared.empty()) return shared;
    }
  } else if (a.isGenericDict()) {
    const c10::impl::GenericDict x = a.toGenericDict(), y = b.toGenericDict();
    for (const auto& entry : x) {
      const std::string where = absl::StrCat(path, "[", c10::str(entry.key()), "]");
      const auto other = y.find(entry.key());
      if (other == y.end()) return absl::StrCat(where, ": missing");
      std::string shared = SharedObject(entry.key(), other->key(), where + " (key)");
      if (shared.empty()) shared = SharedObject(entry.value(), other->value(), where);
      if (!shared.empty()) return shared;
    }
  }
  return "";
}

// Every constant slot of two runtimes of `module`.
void ExpectNothingShared(const StaticModule::Ptr& module, const std::string& name) {
  StaticRuntime first(module), second(module);
  const RuntimeState& a = RuntimeState::Of(first);
  const RuntimeState& b = RuntimeState::Of(second);
  const ValueLayout& layout = a.module_state.layout;
  for (size_t slot = layout.num_inputs(); slot < layout.constants_end(); ++slot) {
    EXPECT_EQ(SharedObject(a.values[slot], b.values[slot], absl::StrCat("constant ", slot)), "")
        << name << ": both runtimes hold this object";
  }
}

TEST(SharedStateTest, TwoRuntimesOfACorpusModelShareNoConstantObject) {
  for (const corpus::Model& model : corpus::Models()) {
    absl::StatusOr<CorpusModule> prepared = PrepareCorpusModel(model);
    ASSERT_TRUE(prepared.ok()) << model.name << ": " << prepared.status();
    ExpectNothingShared(prepared->static_module, model.name);
  }
}

TEST(SharedStateTest, ContainersOfTensorsAreCopiedToTheirElements) {
  // Freezing turns the attributes into constants: a list, a tuple and a dict
  // of tensors, and a string.
  torch::jit::Module module("__torch__.SharedState");
  module.register_attribute("items", c10::ListType::ofTensors(),
                            c10::List<at::Tensor>({at::ones({2}), at::zeros({2})}));
  module.register_attribute(
      "pair", c10::TupleType::create({c10::TensorType::get(), c10::TensorType::get()}),
      c10::ivalue::Tuple::create({at::ones({2}), at::full({2}, 2.0)}));
  c10::Dict<std::string, at::Tensor> table;
  table.insert("a", at::full({2}, 3.0));
  module.register_attribute(
      "table", c10::DictType::create(c10::StringType::get(), c10::TensorType::get()), table);
  module.register_attribute("name", c10::StringType::get(), std::string("ranker"));
  module.define(R"(
def forward(self, x):
    return x + self.items[0] + self.pair[1] + self.table["a"], self.name, self.items, self.table
)");
  absl::StatusOr<StaticModule::Ptr> prepared = StaticModule::FromModule(module, false);
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  int lists = 0, dicts = 0;
  const ValueLayout& layout = ModuleState::Of(**prepared).layout;
  for (const c10::IValue& constant : layout.constants()) {
    lists += constant.isList();
    dicts += constant.isGenericDict();
  }
  EXPECT_GE(lists, 1) << "freezing left no list constant to check";
  EXPECT_GE(dicts, 1) << "freezing left no dict constant to check";
  ExpectNothingShared(*prepared, "containers");
}

}  // namespace
}  // namespace static_runtime
