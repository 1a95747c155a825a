// Property tests for every preparation pass: on each corpus model (frozen and
// inlined), running the JIT interpreter on the original graph and on the graph
// after the pass, with random inputs of random sizes, gives equal outputs.
// Each pass must also actually rewrite at least one corpus model, so a pass
// that silently stops working fails here.
#include <map>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "passes/prepare.h"
#include "rapidcheck/gtest.h"
#include "torch/csrc/jit/passes/inliner.h"
#include "verify/corpus.h"
#include "verify/pass_table.h"
#include "verify/reference.h"

namespace static_runtime {
namespace {

using GraphPtr = std::shared_ptr<torch::jit::Graph>;

// The frozen, inlined forward graph of every corpus model, built once.
const std::vector<GraphPtr>& BaseGraphs() {
  static const auto* const kGraphs = [] {
    auto* graphs = new std::vector<GraphPtr>();
    for (const corpus::Model& model : corpus::Models()) {
      absl::StatusOr<torch::jit::Module> module = corpus::Build(model);
      TORCH_CHECK(module.ok(), module.status().ToString());
      absl::StatusOr<PreparedGraph> frozen = FrozenForward(*module, false);
      TORCH_CHECK(frozen.ok(), frozen.status().ToString());
      torch::jit::Inline(*frozen->graph);
      graphs->push_back(frozen->graph);
    }
    return graphs;
  }();
  return *kGraphs;
}

const golden::NamedPass& PassNamed(const std::string& name) {
  const golden::NamedPass* pass = golden::FindPass(name);
  TORCH_CHECK(pass != nullptr, "no pass ", name);
  return *pass;
}

// The property: for a random model, size and seed, the pass keeps outputs.
void CheckPassKeepsOutputs(const std::string& pass_name) {
  const auto& models = corpus::Models();
  const size_t index = *rc::gen::inRange<size_t>(0, models.size());
  const int64_t size = *rc::gen::inRange<int64_t>(1, 4);
  const uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  const corpus::Model& model = models[index];
  RC_TAG(model.name);

  GraphPtr original = BaseGraphs()[index];
  GraphPtr rewritten = original->copy();
  absl::Status status = PassNamed(pass_name).run(rewritten);
  RC_ASSERT(status.ok());

  corpus::InputRng rng_a(seed), rng_b(seed);
  c10::IValue expected = reference::RunInterpreter(original, model.inputs(rng_a, size));
  c10::IValue actual = reference::RunInterpreter(rewritten, model.inputs(rng_b, size));
  absl::Status same = reference::Compare(expected, actual);
  if (!same.ok()) {
    RC_FAIL(absl::StrCat(model.name, " size ", size, " seed ", seed, ": ", same.message(),
                         "\nrewritten graph:\n", rewritten->toString()));
  }
}

// How many corpus graphs `pass` changes.
int GraphsChangedBy(const std::string& pass_name) {
  int changed = 0;
  for (const GraphPtr& graph : BaseGraphs()) {
    GraphPtr copy = graph->copy();
    const std::string before = copy->toString(false);
    if (!PassNamed(pass_name).run(copy).ok()) continue;
    changed += copy->toString(false) != before;
  }
  return changed;
}

TEST(PassCorpusTest, HasAtLeastTwentyGraphs) { EXPECT_GE(BaseGraphs().size(), 20u); }

TEST(PassCorpusTest, EveryRewriteChangesSomeCorpusGraph) {
  for (const char* pass :
       {"fold_none_checks", "fold_string_checks", "fold_constant_splits", "eliminate_noop_slice",
        "fold_built_lists", "unroll_constant_loops", "sink_into_branches", "drop_eval_dropout",
        "variadic_ops", "fuse_list_unpack", "fuse_conv", "copy_variants", "maybe_copy_to",
        "hoist_dict_lookups", "owned_refs", "force_non_empty_outputs", "pipeline"}) {
    const int changed = GraphsChangedBy(pass);
    EXPECT_GT(changed, 0) << pass << " changed no corpus graph";
    std::cout << pass << " rewrites " << changed << " of " << BaseGraphs().size()
              << " corpus graphs\n";
  }
}

TEST(PassCorpusTest, EveryCorpusGraphIsStaticallyRunnable) {
  for (size_t i = 0; i < BaseGraphs().size(); ++i) {
    GraphPtr copy = BaseGraphs()[i]->copy();
    absl::Status status = PassNamed("pipeline").run(copy);
    EXPECT_TRUE(status.ok()) << corpus::Models()[i].name << ": " << status;
  }
}

RC_GTEST_PROP(PassProperty, FoldNoneChecksKeepsOutputs, ()) {
  CheckPassKeepsOutputs("fold_none_checks");
}
RC_GTEST_PROP(PassProperty, FoldStringChecksKeepsOutputs, ()) {
  CheckPassKeepsOutputs("fold_string_checks");
}
RC_GTEST_PROP(PassProperty, FoldConstantSplitsKeepsOutputs, ()) {
  CheckPassKeepsOutputs("fold_constant_splits");
}
RC_GTEST_PROP(PassProperty, DropEvalDropoutKeepsOutputs, ()) {
  CheckPassKeepsOutputs("drop_eval_dropout");
}
RC_GTEST_PROP(PassProperty, SinkIntoBranchesKeepsOutputs, ()) {
  CheckPassKeepsOutputs("sink_into_branches");
}
RC_GTEST_PROP(PassProperty, EliminateNoOpSliceKeepsOutputs, ()) {
  CheckPassKeepsOutputs("eliminate_noop_slice");
}
RC_GTEST_PROP(PassProperty, FoldBuiltListsKeepsOutputs, ()) {
  CheckPassKeepsOutputs("fold_built_lists");
}
RC_GTEST_PROP(PassProperty, UnrollConstantLoopsKeepsOutputs, ()) {
  CheckPassKeepsOutputs("unroll_constant_loops");
}
RC_GTEST_PROP(PassProperty, VariadicOpsKeepOutputs, ()) { CheckPassKeepsOutputs("variadic_ops"); }
RC_GTEST_PROP(PassProperty, FuseListUnpackKeepsOutputs, ()) {
  CheckPassKeepsOutputs("fuse_list_unpack");
}
RC_GTEST_PROP(PassProperty, FuseConvKeepsOutputs, ()) { CheckPassKeepsOutputs("fuse_conv"); }
RC_GTEST_PROP(PassProperty, CopyVariantsKeepOutputs, ()) { CheckPassKeepsOutputs("copy_variants"); }
RC_GTEST_PROP(PassProperty, MaybeCopyToKeepsOutputs, ()) { CheckPassKeepsOutputs("maybe_copy_to"); }
RC_GTEST_PROP(PassProperty, HoistDictLookupsKeepsOutputs, ()) {
  CheckPassKeepsOutputs("hoist_dict_lookups");
}
RC_GTEST_PROP(PassProperty, OwnedRefsKeepOutputs, ()) { CheckPassKeepsOutputs("owned_refs"); }
RC_GTEST_PROP(PassProperty, ForceNonEmptyOutputsKeepsOutputs, ()) {
  CheckPassKeepsOutputs("force_non_empty_outputs");
}
RC_GTEST_PROP(PassProperty, WholePipelineKeepsOutputs, ()) { CheckPassKeepsOutputs("pipeline"); }

}  // namespace
}  // namespace static_runtime
