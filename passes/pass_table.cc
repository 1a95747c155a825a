#include "passes/pass_table.h"

#include <atomic>

#include "glog/logging.h"
#include "passes/copy_variants.h"
#include "passes/drop_eval_dropout.h"
#include "passes/eliminate_noop_slice.h"
#include "passes/fold_built_lists.h"
#include "passes/fold_constant_splits.h"
#include "passes/fold_conv_batch_norm.h"
#include "passes/fold_none_checks.h"
#include "passes/fold_string_checks.h"
#include "passes/force_non_empty_outputs.h"
#include "passes/fuse_batch_norm_relu.h"
#include "passes/fuse_list_unpack.h"
#include "passes/fuse_pointwise.h"
#include "passes/hoist_dict_lookups.h"
#include "passes/maybe_copy_to.h"
#include "passes/owned_refs.h"
#include "passes/prepack_weights.h"
#include "passes/prune_encoder_rows.h"
#include "passes/sink_into_branches.h"
#include "passes/unroll_constant_loops.h"
#include "passes/var_tuple_unpack.h"
#include "passes/variadic_ops.h"

namespace static_runtime {

const std::vector<RewritePass>& RewritePasses() {
  static const auto* const kPasses = new std::vector<RewritePass>{
      {"fold_string_checks", PassStage::kCleanup, nullptr, FoldStringChecks},
      {"fold_none_checks", PassStage::kCleanup, nullptr, FoldNoneChecks},
      {"fold_constant_splits", PassStage::kCleanup, nullptr, FoldConstantSplits},
      {"drop_eval_dropout", PassStage::kCleanup, nullptr, DropEvalDropout},
      {"eliminate_noop_slice", PassStage::kCleanup, nullptr, EliminateNoOpSlice},
      {"fold_built_lists", PassStage::kCleanup, nullptr, FoldBuiltLists},
      {"unroll_constant_loops", PassStage::kCleanup, &Options::unroll_constant_loops,
       UnrollConstantLoops},
      {"sink_into_branches", PassStage::kCleanup, nullptr, SinkIntoBranches},
      {"fold_conv_batch_norm", PassStage::kRewrite, &Options::prepack_weights,
       FoldConvBatchNormPastRankChecks},
      {"fuse_conv", PassStage::kRewrite, &Options::prepack_weights, FuseConvolutions},
      {"fuse_linear", PassStage::kRewrite, &Options::prepack_weights, FuseLinears},
      {"prepack_transformer_layers", PassStage::kRewrite, &Options::prepack_weights,
       PrepackTransformerLayers},
      {"prune_encoder_rows", PassStage::kRewrite, &Options::prepack_weights, PruneEncoderRows},
      {"fast_rnn_gates", PassStage::kRewrite, &Options::prepack_weights, UseFastRnnGates},
      {"fuse_batch_norm_relu", PassStage::kRewrite, &Options::enable_fusion, FuseBatchNormRelu},
      {"variadic_ops", PassStage::kRewrite, &Options::use_variadic_ops, UseVariadicOps},
      {"fuse_list_unpack", PassStage::kRewrite, &Options::fuse_list_unpack, FuseListUnpack},
      {"copy_variants", PassStage::kRewrite, &Options::use_copy_variants, UseCopyVariants},
      {"maybe_copy_to", PassStage::kRewrite, &Options::use_maybe_copy_variants, UseMaybeCopyTo},
      {"hoist_dict_lookups", PassStage::kRewrite, &Options::hoist_dict_lookups, HoistDictLookups},
      {"fuse_pointwise", PassStage::kRewrite, &Options::enable_fusion, FusePointwise},
      {"var_tuple_unpack", PassStage::kRewrite, &Options::use_variadic_ops, UseVarTupleUnpack},
      {"owned_refs", PassStage::kFinalize, nullptr, CreateOwnedRefs},
      {"force_non_empty_outputs", PassStage::kFinalize, nullptr, ForceNonEmptyOutputs},
  };
  return *kPasses;
}

std::string EnablingOption(const RewritePass& pass) {
  if (pass.enabled_by == nullptr) return "always";
  for (const BoolOption& option : BoolOptions()) {
    if (option.member == pass.enabled_by) return option.name;
  }
  LOG(FATAL) << "pass " << pass.name << " is turned on by an option missing from BoolOptions()";
}

namespace {
// One counter per PassStage (kFinalize is the last).
std::atomic<int64_t> stage_runs[static_cast<int>(PassStage::kFinalize) + 1];
}  // namespace

void RunPassStage(PassStage stage, const std::shared_ptr<torch::jit::Graph>& graph,
                  const Options& options) {
  stage_runs[static_cast<int>(stage)].fetch_add(1, std::memory_order_relaxed);
  for (const RewritePass& pass : RewritePasses()) {
    if (pass.stage == stage && (pass.enabled_by == nullptr || options.*pass.enabled_by)) {
      pass.run(graph);
    }
  }
}

int64_t PassStageRuns(PassStage stage) {
  return stage_runs[static_cast<int>(stage)].load(std::memory_order_relaxed);
}

}  // namespace static_runtime
