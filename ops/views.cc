#include "ops/views.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"

namespace static_runtime {
namespace {

// The view each copy variant materializes, keyed by "<copy op>.<overload>".
const absl::flat_hash_map<std::string, ViewFn>& Views() {
  static const auto* const kViews = new absl::flat_hash_map<std::string, ViewFn>{
      {"copy_reshape.",
       [](const NodeIO& io) { return io.Input(0).toTensor().reshape(io.Input(1).toIntVector()); }},
      {"copy_flatten.using_ints",
       [](const NodeIO& io) {
         return io.Input(0).toTensor().flatten(io.Input(1).toInt(), io.Input(2).toInt());
       }},
      {"copy_permute.",
       [](const NodeIO& io) { return io.Input(0).toTensor().permute(io.Input(1).toIntVector()); }},
      {"copy_reshape_as.",
       [](const NodeIO& io) { return io.Input(0).toTensor().reshape_as(io.Input(1).toTensor()); }},
  };
  return *kViews;
}

}  // namespace

std::string OverloadOf(const torch::jit::Node* node) {
  const c10::FunctionSchema* schema = node->maybeSchema();
  return schema == nullptr ? "?" : schema->overload_name();
}

const ViewFn* CopyVariantView(const torch::jit::Node* node) {
  auto found = Views().find(absl::StrCat(node->kind().toUnqualString(), ".", OverloadOf(node)));
  return found == Views().end() ? nullptr : &found->second;
}

}  // namespace static_runtime
