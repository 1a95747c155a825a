#include "golden/pass_table.h"

#include "absl/strings/str_cat.h"
#include "passes/check_static_runnable.h"
#include "passes/copy_variants.h"
#include "passes/eliminate_noop_slice.h"
#include "passes/force_non_empty_outputs.h"
#include "passes/fuse_conv.h"
#include "passes/fuse_list_unpack.h"
#include "passes/fuse_pointwise.h"
#include "passes/hoist_dict_lookups.h"
#include "load/load.h"
#include "passes/maybe_copy_to.h"
#include "passes/owned_refs.h"
#include "passes/prepare.h"
#include "passes/variadic_ops.h"

namespace static_runtime {
namespace golden {
namespace {

using GraphPtr = std::shared_ptr<torch::jit::Graph>;

// Adapts a `bool Pass(const GraphPtr&)` rewrite.
NamedPass Rewrite(std::string name, bool (*pass)(const GraphPtr&)) {
  return {std::move(name), [pass](GraphPtr& graph) {
            pass(graph);
            return absl::OkStatus();
          }};
}

}  // namespace

const std::vector<NamedPass>& Passes() {
  static const auto* const kPasses = new std::vector<NamedPass>{
      Rewrite("eliminate_noop_slice", EliminateNoOpSlice),
      Rewrite("variadic_ops", UseVariadicOps),
      Rewrite("fuse_list_unpack", FuseListUnpack),
      Rewrite("fuse_conv", FuseConvolutions),
      Rewrite("fuse_linear", FuseLinears),
      Rewrite("prepack_transformer_layers", PrepackTransformerLayers),
      Rewrite("copy_variants", UseCopyVariants),
      Rewrite("maybe_copy_to", UseMaybeCopyTo),
      Rewrite("hoist_dict_lookups", HoistDictLookups),
      Rewrite("fuse_pointwise", FusePointwise),
      Rewrite("owned_refs", CreateOwnedRefs),
      Rewrite("force_non_empty_outputs", ForceNonEmptyOutputs),
      {"check_static_runnable", [](GraphPtr& graph) { return CheckStaticRunnable(graph); }},
      {"pipeline",
       [](GraphPtr& graph) {
         absl::StatusOr<PreparedGraph> prepared = PrepareGraph(graph, Options());
         if (!prepared.ok()) return prepared.status();
         graph = prepared->graph;
         return absl::OkStatus();
       }},
  };
  return *kPasses;
}

const NamedPass* FindPass(const std::string& name) {
  for (const NamedPass& pass : Passes()) {
    if (pass.name == name) return &pass;
  }
  return nullptr;
}

std::string GoldenText(torch::jit::Graph& graph) {
  return graph.toString(/*print_source_locations=*/false);
}

std::string RunPassOnIR(const NamedPass& pass, const std::string& ir) {
  absl::StatusOr<GraphPtr> graph = ParseGraphIR(ir);
  if (!graph.ok()) return absl::StrCat("error: ", graph.status().message(), "\n");
  absl::Status status = pass.run(*graph);
  if (!status.ok()) return absl::StrCat("error: ", status.message(), "\n");
  return GoldenText(**graph);
}

}  // namespace golden
}  // namespace static_runtime
