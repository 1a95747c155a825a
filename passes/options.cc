#include "passes/options.h"

#include "absl/strings/str_cat.h"

namespace static_runtime {

absl::Status ValidateOptions(const Options& options) {
  if (options.optimize_memory && !options.enable_out_variant) {
    return absl::InvalidArgumentError(
        "option optimize_memory=true needs enable_out_variant=true: only "
        "out-variant kernels write into planned memory");
  }
  if (options.manage_output_tensors && !options.enable_out_variant) {
    return absl::InvalidArgumentError(
        "option manage_output_tensors=true needs enable_out_variant=true");
  }
  if (options.manage_output_tensors && !options.optimize_memory) {
    return absl::InvalidArgumentError(
        "option manage_output_tensors=true needs optimize_memory=true");
  }
  if (options.enable_tensorexpr_fusion && !options.fusion_hook) {
    return absl::InvalidArgumentError(
        "option enable_tensorexpr_fusion=true needs a fusion_hook: this "
        "LibTorch build has no LLVM backend, so TensorExpr fusion cannot "
        "compile CPU kernels");
  }
  return absl::OkStatus();
}

std::string DescribeOptions(const Options& options) {
  return absl::StrCat(
      "enable_out_variant=", options.enable_out_variant,
      " optimize_memory=", options.optimize_memory,
      " manage_output_tensors=", options.manage_output_tensors,
      " use_copy_variants=", options.use_copy_variants,
      " use_maybe_copy_variants=", options.use_maybe_copy_variants,
      " enable_tensorexpr_fusion=", options.enable_tensorexpr_fusion,
      " use_variadic_ops=", options.use_variadic_ops,
      " fuse_list_unpack=", options.fuse_list_unpack,
      " hoist_dict_lookups=", options.hoist_dict_lookups,
      " parallel_forks=", options.parallel_forks, " enable_fusion=", options.enable_fusion,
      " prepack_weights=", options.prepack_weights, " inference_mode=", options.inference_mode);
}

}  // namespace static_runtime
