// The views behind the copy variants of passes/copy_variants (for a
// `static_runtime::copy_<view>` node, the view op it materializes) and the
// parts behind the unpacked splits of passes/fuse_list_unpack, computed from a
// node's inputs. Shared by the native kernels (then clone) and the out-variant
// kernels (then copy into a reused tensor).
#ifndef STATIC_RUNTIME_OPS_TENSOR_VIEWS_H_
#define STATIC_RUNTIME_OPS_TENSOR_VIEWS_H_

#include <string>
#include <vector>

#include "ATen/ATen.h"
#include "ir/operators/operators.h"
#include "ops/core/registry.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {

// The view of a copy-variant node (ir/operators/operators.h: CopyVariants(), the
// one table of copy variants); nullptr for any other node.
ops::CopyVariant::View CopyVariantView(const torch::jit::Node* node);

// `view` of the node's inputs.
at::Tensor ApplyView(ops::CopyVariant::View view, const NodeIO& io);

// `split`'s parts of the node's inputs, as many as the node has outputs
// (else a c10::Error naming the op).
std::vector<at::Tensor> ApplySplit(const ops::UnpackedSplit& split, const NodeIO& io);

// The node's overload name ("" for the default one); "?" without a schema.
std::string OverloadOf(const torch::jit::Node* node);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_TENSOR_VIEWS_H_
