#include "ops/tensor/views.h"

#include "absl/strings/string_view.h"

namespace static_runtime {

std::string OverloadOf(const torch::jit::Node* node) {
  const c10::FunctionSchema* schema = node->maybeSchema();
  return schema == nullptr ? "?" : schema->overload_name();
}

ops::CopyVariant::View CopyVariantView(const torch::jit::Node* node) {
  const std::string overload = OverloadOf(node);
  for (const ops::CopyVariant& variant : ops::CopyVariants()) {
    if (node->kind().toQualString() == absl::string_view(variant.copy_op) &&
        overload == variant.view_overload) {
      return variant.view;
    }
  }
  return nullptr;
}

at::Tensor ApplyView(ops::CopyVariant::View view, const NodeIO& io) {
  static const c10::IValue kNone;
  return view(io.Input(0).toTensor(), io.num_inputs() > 1 ? io.Input(1) : kNone,
              io.num_inputs() > 2 ? io.Input(2) : kNone);
}

std::vector<at::Tensor> ApplySplit(const ops::UnpackedSplit& split, const NodeIO& io) {
  static const c10::IValue kNone;
  std::vector<at::Tensor> parts =
      split.parts(io.Input(0).toTensor(), io.num_inputs() > 1 ? io.Input(1) : kNone,
                  io.num_inputs() > 2 ? io.Input(2) : kNone);
  ops::CheckPartCount(split.op, parts.size(), io.num_outputs());
  return parts;
}

}  // namespace static_runtime
