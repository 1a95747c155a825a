// Runtime behaviour beyond the differential harness (//golden:differential_test,
// which runs every corpus model against the JIT): structural nodes run
// natively, keyword arguments, returned inputs keep their identity, models
// load from .pt files.
#include "runtime/static_runtime.h"

#include <string>
#include <thread>
#include <vector>

#include "ATen/ATen.h"
#include "ATen/Parallel.h"
#include "absl/container/flat_hash_set.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/corpus_module.h"
#include "runtime/module_state.h"
#include "runtime/runtime_state.h"
#include "torch/script.h"
#include "verify/corpus.h"
#include "verify/reference.h"

// OpenMP's (libgomp, which LibTorch runs on).
extern "C" int omp_get_max_threads();
extern "C" int omp_get_num_procs();

namespace static_runtime {
namespace {

// Runs `check` on every corpus model, prepared by the runtime (not frozen
// in Python).
void ForEachCorpusModule(const std::function<void(const StaticModule&)>& check) {
  for (const corpus::Model& model : corpus::Models()) {
    SCOPED_TRACE(model.name);
    absl::StatusOr<CorpusModule> prepared = PrepareCorpusModel(model);
    ASSERT_TRUE(prepared.ok()) << prepared.status();
    check(*prepared->static_module);
  }
}

// The hot node records point into their block's flat slot array: every
// node's inputs and outputs are its JIT values' slots, and its cold record
// is the node's own.
TEST(StaticRuntimeTest, PlanSlotsAreTheNodesValues) {
  size_t nodes = 0;
  ForEachCorpusModule([&](const StaticModule& static_module) {
    const ValueLayout& layout = ModuleState::Of(static_module).layout;
    std::function<void(const BlockPlan&)> check = [&](const BlockPlan& block) {
      ASSERT_EQ(block.node_infos.size(), block.nodes.size());
      for (size_t i = 0; i < block.nodes.size(); ++i) {
        const NodePlan& node = block.nodes[i];
        ++nodes;
        ASSERT_EQ(node.info, &block.node_infos[i]);
        const torch::jit::Node* jit_node = node.info->node;
        ASSERT_EQ(node.inputs().size(), jit_node->inputs().size());
        ASSERT_EQ(node.outputs().size(), jit_node->outputs().size());
        for (size_t j = 0; j < node.inputs().size(); ++j) {
          EXPECT_EQ(node.inputs()[j], layout.SlotOf(jit_node->inputs()[j]));
        }
        for (size_t j = 0; j < node.outputs().size(); ++j) {
          EXPECT_EQ(node.outputs()[j], layout.SlotOf(jit_node->outputs()[j]));
        }
        EXPECT_EQ(node.blocks.size(), jit_node->blocks().size());
        for (const BlockPlan& sub_block : node.blocks) check(sub_block);
      }
    };
    check(ModuleState::Of(static_module).plan);
  });
  EXPECT_GT(nodes, 100u);
}

// Structural ops never fall back to the JIT: they have native kernels.
TEST(StaticRuntimeTest, StructuralNodesRunNatively) {
  const absl::flat_hash_set<std::string> structural = {"prim::ListConstruct",
                                                       "prim::TupleConstruct",
                                                       "prim::DictConstruct",
                                                       "prim::ListUnpack",
                                                       "prim::TupleUnpack",
                                                       "prim::TupleIndex",
                                                       "aten::size",
                                                       "aten::dim",
                                                       "aten::numel",
                                                       "aten::len",
                                                       "aten::Int",
                                                       "aten::Float",
                                                       "aten::Bool",
                                                       "prim::NumToTensor",
                                                       "prim::dtype",
                                                       "aten::__is__",
                                                       "aten::__isnot__",
                                                       "prim::Uninitialized",
                                                       "prim::RaiseException",
                                                       "aten::append",
                                                       "aten::__getitem__"};
  size_t structural_nodes = 0;
  std::function<void(const BlockPlan&)> check = [&](const BlockPlan& block) {
    for (const NodePlan& node : block.nodes) {
      for (const BlockPlan& sub_block : node.blocks) check(sub_block);
      const std::string kind = node.info->node->kind().toQualString();
      if (IsControlFlow(node.kind) || structural.count(kind) == 0) continue;
      ++structural_nodes;
      EXPECT_NE(node.info->kind, NodeKind::kFallback) << kind << ": " << node.info->fallback_reason;
    }
  };
  ForEachCorpusModule([&](const StaticModule& static_module) {
    check(ModuleState::Of(static_module).plan);
    EXPECT_GT(static_module.kernel_counts().total(), 0u);
  });
  EXPECT_GT(structural_nodes, 20u);
}

TEST(StaticRuntimeTest, KwargsAndDefaults) {
  absl::StatusOr<CorpusModule> prepared = PrepareCorpusModel(corpus::ModelNamed("kwargs_defaults"));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  StaticRuntime runtime(prepared->static_module);
  const at::Tensor x = at::randn({2, 3});
  const at::Tensor bias = at::randn({3});
  struct Case {
    std::vector<c10::IValue> args;
    KwargMap kwargs;
  };
  for (const Case& c : std::vector<Case>{{{x}, {}},
                                         {{x}, {{"scale", 0.25}}},
                                         {{x}, {{"bias", bias}}},
                                         {{x, 3.0}, {{"bias", bias}}},
                                         {{}, {{"x", x}, {"bias", bias}, {"scale", -1.0}}}}) {
    const c10::IValue expected = prepared->module.forward(c.args, c.kwargs);
    absl::StatusOr<c10::IValue> actual = runtime.Run(c.args, c.kwargs);
    ASSERT_TRUE(actual.ok()) << actual.status();
    EXPECT_TRUE(reference::Compare(expected, *actual).ok())
        << reference::Compare(expected, *actual);
  }
}

// A run on a thread of the caller's sets that thread's OpenMP thread count
// (which oneDNN's kernels read) to the process's intra-op count, as ATen's
// parallel ops do on first use, even where the model runs none of them.
TEST(StaticRuntimeTest, RunsOnACallersThreadTakeTheIntraOpThreadCount) {
  absl::StatusOr<CorpusModule> prepared = PrepareCorpusModel(corpus::ModelNamed("kwargs_defaults"));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  const int before = at::get_num_threads();
  // A count no thread starts with (OpenMP's default is the core count).
  const int count = omp_get_num_procs() + 1;
  at::set_num_threads(count);
  int on_thread = 0;
  std::thread([&] {
    StaticRuntime runtime(prepared->static_module);
    EXPECT_TRUE(runtime.Run({at::randn({2, 3})}).ok());
    on_thread = omp_get_max_threads();
  }).join();
  at::set_num_threads(before);
  EXPECT_EQ(on_thread, count);
}

TEST(StaticRuntimeTest, ReturnedInputIsTheCallersTensorAndRepeatsAreConsistent) {
  absl::StatusOr<CorpusModule> prepared =
      PrepareCorpusModel(corpus::ModelNamed("returns_input_and_constant"));
  ASSERT_TRUE(prepared.ok()) << prepared.status();
  StaticRuntime runtime(prepared->static_module);
  const at::Tensor x = at::randn({4});
  const at::Tensor y = at::randn({2});
  for (int run = 0; run < 2; ++run) {
    absl::StatusOr<c10::IValue> result = runtime.Run({x, y});
    ASSERT_TRUE(result.ok()) << result.status();
    const auto& outputs = result->toTupleRef().elements();
    ASSERT_EQ(outputs.size(), 4u);
    EXPECT_TRUE(outputs[0].toTensor().is_same(x));
    EXPECT_EQ(outputs[1].toInt(), 3);
    EXPECT_TRUE(outputs[2].toTensor().is_same(y));
    EXPECT_TRUE(outputs[3].toTensor().is_same(x));
    EXPECT_EQ(runtime.NumHeldValues(), 0u);
  }
}

// Out variants are used for most tensor ops and never for view ops; with
// copy variants off a view stays a view of its input.
TEST(StaticRuntimeTest, ViewsStayViewsWhenCopyVariantsAreOff) {
  constexpr char kIR[] = R"IR(
graph(%x : Tensor):
  %shape : int[] = prim::Constant[value=[-1]]()
  %y : Tensor = aten::reshape(%x, %shape)
  %z : Tensor = aten::relu(%x)
  return (%y, %z))IR";
  Options options;
  options.use_copy_variants = false;
  absl::StatusOr<StaticModule::Ptr> module = StaticModule::FromIR(kIR, options);
  ASSERT_TRUE(module.ok()) << module.status();
  const BlockPlan& plan = ModuleState::Of(**module).plan;
  ASSERT_EQ(plan.nodes.size(), 2u);
  EXPECT_NE(plan.nodes[0].info->kind, NodeKind::kOutVariant);  // reshape
  EXPECT_EQ(plan.nodes[1].info->kind, NodeKind::kOutVariant);  // relu
  StaticRuntime runtime(*module);
  const at::Tensor x = at::randn({2, 3});
  absl::StatusOr<c10::IValue> result = runtime.Run({x});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->toTupleRef().elements()[0].toTensor().is_alias_of(x));

  // An intermediate view nobody can observe becomes a copying out variant
  // (a reshape of the caller's tensor, as a rule contiguous, stays a view).
  absl::StatusOr<StaticModule::Ptr> copying = StaticModule::FromIR(R"IR(
graph(%x : Tensor):
  %shape : int[] = prim::Constant[value=[-1]]()
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %t : Tensor = aten::transpose(%x, %zero, %one)
  %y : Tensor = aten::reshape(%t, %shape)
  %f : Tensor = aten::reshape(%x, %shape)
  %z : Tensor = aten::mul(%y, %f)
  return (%z))IR");
  ASSERT_TRUE(copying.ok()) << copying.status();
  const BlockPlan& copying_plan = ModuleState::Of(**copying).plan;
  ASSERT_EQ(copying_plan.nodes.size(), 4u);
  EXPECT_EQ(copying_plan.nodes[1].info->node->kind().toQualString(),
            std::string("static_runtime::copy_reshape"));
  EXPECT_EQ(copying_plan.nodes[1].info->kind, NodeKind::kOutVariant);
  EXPECT_EQ(copying_plan.nodes[2].info->node->kind().toQualString(), std::string("aten::reshape"));
  StaticRuntime copying_runtime(*copying);
  result = copying_runtime.Run({x});
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->toTensor().equal(x.t().reshape(-1) * x.reshape(-1)));
}

TEST(StaticRuntimeTest, LoadsASavedArchive) {
  const corpus::Model& model = corpus::ModelNamed("ads_ranking");
  absl::StatusOr<torch::jit::Module> module = corpus::Build(model);
  ASSERT_TRUE(module.ok()) << module.status();
  const std::string path = ::testing::TempDir() + "/ads_ranking.pt";
  module->save(path);
  absl::StatusOr<StaticModule::Ptr> static_module = StaticModule::FromFile(path);
  ASSERT_TRUE(static_module.ok()) << static_module.status();
  StaticRuntime runtime(*static_module);
  corpus::InputRng rng(5);
  const std::vector<c10::IValue> inputs = model.inputs(rng, 2);
  absl::StatusOr<c10::IValue> result = runtime.Run(inputs);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(reference::Compare(module->forward(inputs), *result).ok());

  absl::StatusOr<StaticModule::Ptr> missing = StaticModule::FromFile(path + ".missing");
  EXPECT_FALSE(missing.ok());
}

TEST(StaticRuntimeTest, GraphWithSeveralOutputsReturnsATuple) {
  absl::StatusOr<StaticModule::Ptr> static_module = StaticModule::FromIR(R"IR(
graph(%x : Tensor, %n : int):
  %one : int = prim::Constant[value=1]()
  %y : Tensor = aten::mul(%x, %n)
  %m : int = aten::add(%n, %one)
  return (%y, %m))IR");
  ASSERT_TRUE(static_module.ok()) << static_module.status();
  StaticRuntime runtime(*static_module);
  absl::StatusOr<c10::IValue> result = runtime.Run({at::ones({2}), int64_t{4}});
  ASSERT_TRUE(result.ok()) << result.status();
  const auto& outputs = result->toTupleRef().elements();
  EXPECT_TRUE(outputs[0].toTensor().equal(at::full({2}, 4.0)));
  EXPECT_EQ(outputs[1].toInt(), 5);
}

// A list or dict a node builds is reused by the next run only when nothing
// else holds it: the containers a run returned, or put into what it
// returned, never change afterwards; the ones it kept to itself are reused.
TEST(StaticRuntimeTest, BuiltContainersAreReusedOnlyWhenNothingElseHoldsThem) {
  absl::StatusOr<StaticModule::Ptr> static_module = StaticModule::FromIR(R"IR(
graph(%x : Tensor, %key : str, %i : int):
  %one : int = prim::Constant[value=1]()
  %y : Tensor = aten::mul(%x, %one)
  %inner : Tensor[] = prim::ListConstruct(%x, %y)
  %picked : Tensor = aten::__getitem__(%inner, %i)
  %kept : Tensor[] = prim::ListConstruct(%picked, %x)
  %d : Dict(str, Tensor) = prim::DictConstruct(%key, %y)
  %nested : Tensor[][] = prim::ListConstruct(%kept)
  return (%nested, %d))IR");
  ASSERT_TRUE(static_module.ok()) << static_module.status();
  StaticRuntime runtime(*static_module);
  const at::Tensor first = at::ones({2});
  absl::StatusOr<c10::IValue> held = runtime.Run({first, std::string("a"), int64_t{1}});
  ASSERT_TRUE(held.ok()) << held.status();
  const void* inner_list = nullptr;
  for (const c10::IValue& value : RuntimeState::Of(runtime).values) {
    if (value.isList() && value.toListRef().empty()) inner_list = value.internalToPointer();
  }
  EXPECT_NE(inner_list, nullptr) << "the list only __getitem__ read stays, emptied";
  EXPECT_EQ(runtime.NumHeldValues(), 0u);

  for (int run = 0; run < 3; ++run) {
    absl::StatusOr<c10::IValue> result =
        runtime.Run({at::full({2}, run + 2.0), std::string("b"), int64_t{0}});
    ASSERT_TRUE(result.ok()) << result.status();
    const auto& outputs = result->toTupleRef().elements();
    EXPECT_TRUE(
        outputs[0].toListRef()[0].toListRef()[1].toTensor().equal(at::full({2}, run + 2.0)));
    EXPECT_EQ(outputs[1].toGenericDict().size(), 1u);
    EXPECT_EQ(outputs[1].toGenericDict().begin()->key().toStringRef(), "b");
  }
  bool reused = false;
  for (const c10::IValue& value : RuntimeState::Of(runtime).values) {
    reused |= value.isList() && value.internalToPointer() == inner_list;
  }
  EXPECT_TRUE(reused);

  // The first run's result is as it was returned.
  const auto& outputs = held->toTupleRef().elements();
  const auto& kept = outputs[0].toListRef()[0].toListRef();
  ASSERT_EQ(kept.size(), 2u);
  EXPECT_TRUE(kept[1].toTensor().is_same(first));
  EXPECT_TRUE(kept[0].toTensor().equal(first));
  const c10::impl::GenericDict d = outputs[1].toGenericDict();
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d.begin()->key().toStringRef(), "a");
  EXPECT_TRUE(d.begin()->value().toTensor().equal(first));
}

}  // namespace
}  // namespace static_runtime
