#include "options/options.h"

#include "absl/strings/str_cat.h"

namespace static_runtime {

const std::vector<BoolOption>& BoolOptions() {
  static const auto* const kBoolOptions = new std::vector<BoolOption>{
      {"enable_out_variant", &Options::enable_out_variant, "use out-variant kernels"},
      {"optimize_memory", &Options::optimize_memory, "plan intermediates into one arena"},
      {"manage_output_tensors", &Options::manage_output_tensors, "keep outputs in a reused buffer"},
      {"group_output_allocations", &Options::group_output_allocations,
       "the tensors a run hands out share one allocation"},
      {"use_copy_variants", &Options::use_copy_variants, "replace unobserved views by copies"},
      {"use_maybe_copy_variants", &Options::use_maybe_copy_variants, "aten::to into owned memory"},
      {"use_variadic_ops", &Options::use_variadic_ops, "cat/stack of a list -> variadic node"},
      {"fuse_list_unpack", &Options::fuse_list_unpack,
       "split/chunk/unbind + unpack fusion (copies)"},
      {"hoist_dict_lookups", &Options::hoist_dict_lookups, "constant-key lookups on input dicts"},
      {"unroll_constant_loops", &Options::unroll_constant_loops,
       "loops with a small constant trip count -> copies of their body"},
      {"parallel_forks", &Options::parallel_forks,
       "forked calls run in parallel on task workers (false: inlined, in program order)"},
      {"enable_fusion", &Options::enable_fusion,
       "runs of float elementwise ops -> one fused kernel; batch_norm + relu -> one kernel"},
      {"inference_mode", &Options::inference_mode, "run under c10::InferenceMode"},
      {"prepack_weights", &Options::prepack_weights,
       "oneDNN convolutions, linears and transformer layers, pre-packed weights; fast RNN gates "
       "(false: ATen's exact kernels)"},
      {"poison_recycled_memory", &Options::poison_recycled_memory,
       "for tests: recycled memory holds a NaN pattern (ASan: poisoned) until reused"},
      {"release_freed_memory", &Options::release_freed_memory,
       "when the arena grows, return freed heap memory to the system"},
  };
  return *kBoolOptions;
}

const BoolOption* FindBoolOption(absl::string_view name) {
  for (const BoolOption& option : BoolOptions()) {
    if (name == option.name) return &option;
  }
  return nullptr;
}

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
  if (options.shape_plans_per_kernel < 1) {
    return absl::InvalidArgumentError(
        "option shape_plans_per_kernel must be at least 1 (a kernel needs the plan of the "
        "shape it runs)");
  }
  return absl::OkStatus();
}

std::string DescribeOptions(const Options& options) {
  std::string description =
      absl::StrCat("enable_tensorexpr_fusion=", options.enable_tensorexpr_fusion);
  for (const BoolOption& option : BoolOptions()) {
    absl::StrAppend(&description, " ", option.name, "=", options.*option.member);
  }
  absl::StrAppend(&description, " shape_plans_per_kernel=", options.shape_plans_per_kernel);
  return description;
}

}  // namespace static_runtime
