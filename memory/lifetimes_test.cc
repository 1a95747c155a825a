#include "memory/lifetimes.h"

#include <string>
#include <unordered_map>

#include "ATen/ATen.h"
#include "gtest/gtest.h"
#include "torch/csrc/jit/ir/irparser.h"
#include "torch/csrc/jit/runtime/custom_operator.h"

namespace static_runtime {
namespace memory {
namespace {

// A variadic op, whose outputs the JIT's alias analysis cannot tell apart
// from its inputs (as the runtime's fused and variadic nodes).
const c10::Symbol kOpaque = c10::Symbol::fromQualString("memory_test::opaque");
const torch::jit::RegisterOperators kRegisterOpaque({torch::jit::Operator(
    "memory_test::opaque(...) -> ...",
    [](torch::jit::Stack& stack) {
      const at::Tensor b = torch::jit::pop(stack).toTensor();
      const at::Tensor a = torch::jit::pop(stack).toTensor();
      torch::jit::push(stack, a.add(b));
    },
    c10::AliasAnalysisKind::FROM_SCHEMA)});

// Names of the parsed values, as written in the IR.
std::unordered_map<const torch::jit::Value*, std::string> names;

std::shared_ptr<torch::jit::Graph> Parse(const std::string& ir) {
  auto graph = std::make_shared<torch::jit::Graph>();
  std::unordered_map<std::string, torch::jit::Value*> values;
  torch::jit::parseIR(ir, graph.get(), values);
  for (const auto& [name, value] : values) names[value] = name;
  return graph;
}

// Every aten:: node is a candidate.
LifetimeAnalysis Analyze(const std::shared_ptr<torch::jit::Graph>& graph) {
  return AnalyzeLifetimes(graph,
                          [](const torch::jit::Node* node) { return node->kind().is_aten(); });
}

// Every aten:: node and memory_test::opaque are candidates; opaque only reads
// its inputs (as the runtime's fused and variadic nodes).
LifetimeAnalysis AnalyzeWithOpaqueReader(const std::shared_ptr<torch::jit::Graph>& graph) {
  return AnalyzeLifetimes(
      graph,
      [](const torch::jit::Node* node) {
        return node->kind().is_aten() || node->kind() == kOpaque;
      },
      [](const torch::jit::Node* node) { return node->kind() == kOpaque; });
}

std::string Describe(const LifetimeAnalysis& analysis) {
  std::string text;
  for (const ManagedValue& managed : analysis.managed) {
    text += "%" + names.at(managed.value) + "[" + std::to_string(managed.first) + "," +
            std::to_string(managed.last) + "] ";
  }
  text += "|";
  for (const ManagedValue& output : analysis.outputs) text += " out:%" + names.at(output.value);
  for (const torch::jit::Value* rejected : analysis.rejected) {
    text += " %" + names.at(rejected);
  }
  return text;
}

TEST(LifetimesTest, IntervalsFromDefinitionToLastUse) {
  // 0:a 1:b 2:c 3:d ; a used by b and d, b by c, c by d; d is the output.
  auto graph = Parse(R"IR(
graph(%x : Tensor):
  %a : Tensor = aten::relu(%x)
  %b : Tensor = aten::sigmoid(%a)
  %c : Tensor = aten::tanh(%b)
  %d : Tensor = aten::mul(%a, %c)
  return (%d))IR");
  EXPECT_EQ(Describe(Analyze(graph)), "%a[0,3] %b[1,2] %c[2,3] | out:%d");
}

TEST(LifetimesTest, UseInsideALoopLastsUntilTheLoopEnds) {
  auto graph = Parse(R"IR(
graph(%x : Tensor, %n : int):
  %true : bool = prim::Constant[value=1]()
  %a : Tensor = aten::relu(%x)
  %y : Tensor = prim::Loop(%n, %true, %x)
    block0(%i : int, %acc : Tensor):
      %next : Tensor = aten::mul(%acc, %a)
      -> (%true, %next)
  %b : Tensor = aten::sigmoid(%y)
  %c : Tensor = aten::tanh(%b)
  return (%c))IR");
  // 0:true 1:a 2:loop 3:next (in the body) 4:b 5:c; %next is yielded.
  EXPECT_EQ(Describe(Analyze(graph)), "%a[1,3] %b[4,5] | out:%c %next");
}

TEST(LifetimesTest, ValuesInsideBranchesAndLoopBodiesAreManaged) {
  auto graph = Parse(R"IR(
graph(%x : Tensor, %n : int, %cond : bool):
  %true : bool = prim::Constant[value=1]()
  %y : Tensor = prim::Loop(%n, %true, %x)
    block0(%i : int, %acc : Tensor):
      %p : Tensor = aten::relu(%acc)
      %q : Tensor = aten::sigmoid(%p)
      %r : Tensor = prim::If(%cond)
        block0():
          %s : Tensor = aten::tanh(%q)
          %t : Tensor = aten::exp(%s)
          -> (%t)
        block1():
          %u : Tensor = aten::neg(%q)
          -> (%u)
      %next : Tensor = aten::mul(%r, %p)
      -> (%true, %next)
  %z : Tensor = aten::abs(%y)
  return (%z))IR");
  // 0:true 1:loop 2:p 3:q 4:if 5:s 6:t 7:u 8:next 9:z. %p lives until the
  // mul, %q until the If ends (read in both branches), %s within its branch;
  // %t and %u are yielded by the If, %next by the loop.
  EXPECT_EQ(Describe(Analyze(graph)), "%p[2,8] %q[3,7] %s[5,6] | out:%z %t %u %next");
}

TEST(LifetimesTest, AliasesContainersWritesAndYieldsAreNotManaged) {
  auto graph = Parse(R"IR(
graph(%x : Tensor, %cond : bool):
  %one : int = prim::Constant[value=1]()
  %shape : int[] = prim::Constant[value=[-1]]()
  %a : Tensor = aten::relu(%x)
  %view : Tensor = aten::reshape(%a, %shape)
  %b : Tensor = aten::sigmoid(%x)
  %list : Tensor[] = prim::ListConstruct(%b)
  %c : Tensor = aten::tanh(%x)
  %c2 : Tensor = aten::add_(%c, %x, %one)
  %d : Tensor = aten::exp(%x)
  %e : Tensor = prim::If(%cond)
    block0():
      -> (%d)
    block1():
      -> (%x)
  %f : Tensor = aten::neg(%x)
  %g : Tensor = aten::mul(%f, %f)
  %result : (Tensor, Tensor[], Tensor, Tensor, Tensor) = prim::TupleConstruct(%view, %list, %c2, %e, %g)
  return (%result))IR");
  const LifetimeAnalysis analysis = Analyze(graph);
  // %a is viewed, %b listed, %c written, %d yielded; %view and %c2 alias
  // inputs; %g is an output (inside the returned tuple). Only %f is managed.
  EXPECT_EQ(Describe(analysis), "%f[10,11] | out:%g %a %view %b %c %c2 %d");
}

TEST(LifetimesTest, FreshOutputsOfANodeThatOnlyReadsStayFreshThroughReadingArguments) {
  // memory_test::opaque stands for such a node: its output is copied by
  // clone and read by sub_ as `other` (sub_ writes only its self, the copy).
  auto graph = Parse(R"IR(
graph(%x : Tensor):
  %none : NoneType = prim::Constant()
  %half : float = prim::Constant[value=0.5]()
  %a : Tensor = aten::relu(%x)
  %v : Tensor = memory_test::opaque(%a, %x)
  %z : Tensor = aten::clone(%v, %none)
  %z2 : Tensor = aten::sub_(%z, %v, %half)
  return (%z2))IR");
  const LifetimeAnalysis analysis = AnalyzeWithOpaqueReader(graph);
  // %v lives until sub_ reads it; %z is written and returned by sub_.
  EXPECT_EQ(Describe(analysis), "%a[2,3] %v[3,5] | %z %z2");
}

// `d[k] = v` stores v in a dict the run returns: the op returns nothing, so
// only its schema tells. The stored value leaves the plan even when it comes
// from a node that only reads (whose outputs alias analysis cannot place).
TEST(LifetimesTest, ValuesStoredIntoAContainerByAnOpThatReturnsNothingAreNotManaged) {
  auto graph = Parse(R"IR(
graph(%x : Tensor):
  %key : str = prim::Constant[value="k"]()
  %a : Tensor = aten::relu(%x)
  %v : Tensor = memory_test::opaque(%a, %x)
  %w : Tensor = memory_test::opaque(%a, %x)
  %d : Dict(str, Tensor) = prim::DictConstruct()
  aten::_set_item(%d, %key, %v)
  %y : Tensor = aten::mul(%w, %x)
  return (%d, %y))IR");
  const LifetimeAnalysis analysis = AnalyzeWithOpaqueReader(graph);
  EXPECT_EQ(Describe(analysis), "%a[1,3] %w[3,6] | out:%y %v");
}

// A list the run builds for itself, appends to and only stacks, concatenates
// or counts: its elements live until its last use.
TEST(LifetimesTest, ElementsOfAPrivateListLiveUntilItsLastUse) {
  auto graph = Parse(R"IR(
graph(%x : Tensor, %y : Tensor):
  %dim : int = prim::Constant[value=0]()
  %a : Tensor = aten::relu(%x)
  %b : Tensor = aten::sigmoid(%y)
  %list : Tensor[] = prim::ListConstruct(%a)
  %appended : Tensor[] = aten::append(%list, %b)
  %n : int = aten::len(%list)
  %s : Tensor = aten::stack(%list, %dim)
  %c : Tensor = aten::mul(%s, %a)
  %t : Tensor = aten::tanh(%c)
  return (%t))IR");
  EXPECT_EQ(Describe(Analyze(graph)), "%a[1,7] %b[2,6] %s[6,7] %c[7,8] | out:%t");
}

// Elements of lists that are returned, read through an alias (__getitem__),
// appended to inside a loop body, or whose append result is used; a value
// also stored into the caller's dict; a value appended to the caller's list.
TEST(LifetimesTest, ElementsOfListsThatMayEscapeAreNotManaged) {
  auto graph = Parse(R"IR(
graph(%x : Tensor, %n : int, %d : Dict(str, Tensor), %inputs : Tensor[]):
  %zero : int = prim::Constant[value=0]()
  %true : bool = prim::Constant[value=1]()
  %key : str = prim::Constant[value="k"]()
  %a : Tensor = aten::relu(%x)
  %returned : Tensor[] = prim::ListConstruct(%a)
  %b : Tensor = aten::sigmoid(%x)
  %indexed : Tensor[] = prim::ListConstruct(%b)
  %item : Tensor = aten::__getitem__(%indexed, %zero)
  %looped : Tensor[] = prim::ListConstruct()
  prim::Loop(%n, %true)
    block0(%i : int):
      %c : Tensor = aten::tanh(%x)
      %ignored : Tensor[] = aten::append(%looped, %c)
      -> (%true)
  %s1 : Tensor = aten::stack(%looped, %zero)
  %e : Tensor = aten::exp(%x)
  %chained : Tensor[] = prim::ListConstruct()
  %again : Tensor[] = aten::append(%chained, %e)
  %s2 : Tensor = aten::stack(%again, %zero)
  %f : Tensor = aten::neg(%x)
  %private : Tensor[] = prim::ListConstruct(%f)
  %s3 : Tensor = aten::stack(%private, %zero)
  aten::_set_item(%d, %key, %f)
  %g : Tensor = aten::abs(%x)
  %theirs : Tensor[] = aten::append(%inputs, %g)
  %sum : Tensor = aten::mul(%s1, %s2)
  %result : (Tensor[], Tensor, Tensor, Tensor) = prim::TupleConstruct(%returned, %item, %sum, %s3)
  return (%result))IR");
  EXPECT_EQ(Describe(Analyze(graph)),
            "%s1[12,23] %s2[16,23] | out:%s3 out:%sum %a %b %item %c %e %f %g");
}

// Views (and views of views) that are only read keep the value alive
// until their last use, and are its holders; in a loop body they do not
// (the next iteration writes the value while the last one's views hold it).
TEST(LifetimesTest, ReadViewsExtendTheLifetimeOutsideLoopBodies) {
  auto graph = Parse(R"IR(
graph(%x : Tensor, %y : Tensor, %n : int):
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %true : bool = prim::Constant[value=1]()
  %a : Tensor = aten::relu(%x)
  %t : Tensor = aten::transpose(%a, %zero, %one)
  %s : Tensor = aten::select(%t, %zero, %zero)
  %b : Tensor = aten::sigmoid(%y)
  %c : Tensor = aten::mul(%s, %b)
  %d : Tensor = aten::tanh(%c)
  %e : Tensor = prim::Loop(%n, %true, %d)
    block0(%i : int, %h : Tensor):
      %f : Tensor = aten::exp(%h)
      %v : Tensor = aten::transpose(%f, %zero, %one)
      %g : Tensor = aten::mul(%v, %h)
      -> (%true, %g)
  return (%e))IR");
  const LifetimeAnalysis analysis = Analyze(graph);
  EXPECT_EQ(Describe(analysis), "%a[3,7] %b[6,7] %c[7,8] %d[8,12] | %t %s %f %v %g");
  std::string holders;
  for (const torch::jit::Value* holder : analysis.holders) holders += " %" + names.at(holder);
  EXPECT_EQ(holders, " %t %s");
}

// A view read inside a branch keeps its base alive until the branch ends,
// past the values the branch makes (which may otherwise take its memory).
TEST(LifetimesTest, AViewReadInsideABranchKeepsItsBaseUntilTheBranchEnds) {
  auto graph = Parse(R"IR(
graph(%x : Tensor, %cond : bool):
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::relu(%x)
  %t : Tensor = aten::transpose(%a, %zero, %one)
  %r : Tensor = prim::If(%cond)
    block0():
      %b : Tensor = aten::sigmoid(%x)
      %c : Tensor = aten::mul(%t, %b)
      -> (%c)
    block1():
      -> (%x)
  %d : Tensor = aten::tanh(%r)
  return (%d))IR");
  // 0:zero 1:one 2:a 3:t 4:if 5:b 6:c 7:d
  EXPECT_EQ(Describe(Analyze(graph)), "%a[2,6] %b[5,6] | out:%d %t %c");
}

// A view that escapes (returned) or is written keeps the value unmanaged.
TEST(LifetimesTest, ViewsThatEscapeOrAreWrittenAreNotManaged) {
  auto graph = Parse(R"IR(
graph(%x : Tensor):
  %zero : int = prim::Constant[value=0]()
  %one : int = prim::Constant[value=1]()
  %a : Tensor = aten::relu(%x)
  %t : Tensor = aten::transpose(%a, %zero, %one)
  %b : Tensor = aten::sigmoid(%x)
  %s : Tensor = aten::select(%b, %zero, %zero)
  %w : Tensor = aten::add_(%s, %x, %one)
  %c : Tensor = aten::mul(%w, %x)
  %result : (Tensor, Tensor) = prim::TupleConstruct(%t, %c)
  return (%result))IR");
  EXPECT_EQ(Describe(Analyze(graph)), "| out:%c %a %t %b %s %w");
}

// dropout (not training) and type_as return their input itself, though
// their schemas say their results are fresh: they hold the value as views
// do (swin_t's attention read a recycled softmax through dropout).
TEST(LifetimesTest, OpsThatMayReturnTheirInputHoldItAsViews) {
  auto graph = Parse(R"IR(
graph(%x : Tensor, %y : Tensor):
  %p : float = prim::Constant[value=0.1]()
  %false : bool = prim::Constant[value=0]()
  %a : Tensor = aten::exp(%x)
  %d : Tensor = aten::dropout(%a, %p, %false)
  %b : Tensor = aten::relu(%y)
  %c : Tensor = aten::matmul(%d, %b)
  %e : Tensor = aten::sigmoid(%y)
  %t : Tensor = aten::type_as(%e, %x)
  %result : (Tensor, Tensor) = prim::TupleConstruct(%c, %t)
  return (%result))IR");
  EXPECT_EQ(Describe(Analyze(graph)), "%a[2,5] %b[4,5] | out:%c %d %e %t");
}

}  // namespace
}  // namespace memory
}  // namespace static_runtime
