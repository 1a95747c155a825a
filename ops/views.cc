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
      {"copy_view.",
       [](const NodeIO& io) { return io.Input(0).toTensor().view(io.Input(1).toIntVector()); }},
      {"copy_flatten.using_ints",
       [](const NodeIO& io) {
         return io.Input(0).toTensor().flatten(io.Input(1).toInt(), io.Input(2).toInt());
       }},
      {"copy_permute.",
       [](const NodeIO& io) { return io.Input(0).toTensor().permute(io.Input(1).toIntVector()); }},
      {"copy_transpose.int",
       [](const NodeIO& io) {
         return io.Input(0).toTensor().transpose(io.Input(1).toInt(), io.Input(2).toInt());
       }},
      {"copy_t.", [](const NodeIO& io) { return io.Input(0).toTensor().t(); }},
      {"copy_narrow.",
       [](const NodeIO& io) {
         return io.Input(0).toTensor().narrow(io.Input(1).toInt(), io.Input(2).toInt(),
                                              io.Input(3).toInt());
       }},
      {"copy_squeeze.", [](const NodeIO& io) { return io.Input(0).toTensor().squeeze(); }},
      {"copy_squeeze.dim",
       [](const NodeIO& io) { return io.Input(0).toTensor().squeeze(io.Input(1).toInt()); }},
      {"copy_unsqueeze.",
       [](const NodeIO& io) { return io.Input(0).toTensor().unsqueeze(io.Input(1).toInt()); }},
      {"copy_expand.",
       [](const NodeIO& io) {
         return io.Input(0).toTensor().expand(io.Input(1).toIntVector(), io.Input(2).toBool());
       }},
      {"copy_expand_as.",
       [](const NodeIO& io) { return io.Input(0).toTensor().expand_as(io.Input(1).toTensor()); }},
      {"copy_reshape_as.",
       [](const NodeIO& io) { return io.Input(0).toTensor().reshape_as(io.Input(1).toTensor()); }},
      {"copy_view_as.",
       [](const NodeIO& io) { return io.Input(0).toTensor().view_as(io.Input(1).toTensor()); }},
      {"copy_select.int",
       [](const NodeIO& io) {
         return io.Input(0).toTensor().select(io.Input(1).toInt(), io.Input(2).toInt());
       }},
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
