#include "ir/read_only_uses.h"

#include <string>
#include <unordered_map>

#include "gtest/gtest.h"
#include "ir/operators/operators.h"
#include "torch/csrc/jit/ir/irparser.h"

namespace static_runtime {
namespace {

// Whether %v of `ir` is only read within the run.
bool OnlyRead(const std::string& ir) {
  ops::EnsureOperatorsRegistered();
  auto graph = std::make_shared<torch::jit::Graph>();
  std::unordered_map<std::string, torch::jit::Value*> values;
  torch::jit::parseIR(ir, graph.get(), values);
  return OnlyReadWithinRun(values.at("v"));
}

// dropout and type_as may return their input itself: what they return must
// be only read in turn.
TEST(ReadOnlyUsesTest, OpsThatMayReturnTheirInputAreViews) {
  EXPECT_FALSE(OnlyRead(R"IR(
    graph(%x : Tensor):
      %p : float = prim::Constant[value=0.1]()
      %false : bool = prim::Constant[value=0]()
      %v : Tensor = aten::relu(%x)
      %d : Tensor = aten::dropout(%v, %p, %false)
      return (%d))IR"));
  EXPECT_FALSE(OnlyRead(R"IR(
    graph(%x : Tensor):
      %v : Tensor = aten::relu(%x)
      %t : Tensor = aten::type_as(%v, %x)
      return (%t))IR"));
  EXPECT_TRUE(OnlyRead(R"IR(
    graph(%x : Tensor):
      %p : float = prim::Constant[value=0.1]()
      %false : bool = prim::Constant[value=0]()
      %v : Tensor = aten::relu(%x)
      %d : Tensor = aten::dropout(%v, %p, %false)
      %y : Tensor = aten::sigmoid(%d)
      return (%y))IR"));
}

TEST(ReadOnlyUsesTest, ReadersAndViewsOfViewsThatAreRead) {
  EXPECT_TRUE(OnlyRead(R"IR(
    graph(%x : Tensor):
      %0 : int = prim::Constant[value=0]()
      %1 : int = prim::Constant[value=1]()
      %v : Tensor = aten::transpose(%x, %0, %1)
      %w : Tensor = aten::select(%v, %0, %0)
      %y : Tensor = aten::sigmoid(%w)
      %n : int = aten::size(%v, %0)
      %z : Tensor = aten::add(%y, %v, %1)
      return (%z, %n))IR"));
  // Unused, and read by our variadic operators.
  EXPECT_TRUE(OnlyRead(R"IR(
    graph(%x : Tensor):
      %0 : int = prim::Constant[value=0]()
      %1 : int = prim::Constant[value=1]()
      %v : Tensor = aten::transpose(%x, %0, %1)
      %c : Tensor = static_runtime::variadic_cat(%v, %x, %0)
      return (%c))IR"));
  // An element of a list only appended to and concatenated.
  EXPECT_TRUE(OnlyRead(R"IR(
    graph(%x : Tensor, %n : int):
      %0 : int = prim::Constant[value=0]()
      %1 : int = prim::Constant[value=1]()
      %t : bool = prim::Constant[value=1]()
      %first : Tensor = aten::relu(%x)
      %l : Tensor[] = prim::ListConstruct(%first)
      %y : Tensor = prim::Loop(%n, %t, %x)
        block0(%i : int, %acc : Tensor):
          %v : Tensor = aten::transpose(%x, %0, %1)
          %s : Tensor = aten::slice(%v, %0, %0, %1, %1)
          %a : Tensor[] = aten::append(%l, %s)
          -> (%t, %acc)
      %c : Tensor = aten::cat(%l, %1)
      %k : int = aten::len(%l)
      return (%c, %k, %y))IR"));
  // The result of a branch of an if whose result is only read (as
  // F.embedding_bag's checks pass `ids[i]` on).
  EXPECT_TRUE(OnlyRead(R"IR(
    graph(%x : Tensor, %b : bool):
      %0 : int = prim::Constant[value=0]()
      %1 : int = prim::Constant[value=1]()
      %v : Tensor = aten::select(%x, %0, %0)
      %w : Tensor = prim::If(%b)
        block0():
          %r : Tensor = aten::flatten(%v, %0, %0)
          -> (%r)
        block1():
          -> (%v)
      %y : Tensor = aten::sigmoid(%w)
      return (%y))IR"));
}

TEST(ReadOnlyUsesTest, ValuesThatMayBeObservedOutsideTheRun) {
  const std::string head = R"IR(
    graph(%x : Tensor, %l : Tensor[]):
      %0 : int = prim::Constant[value=0]()
      %1 : int = prim::Constant[value=1]()
      %t : bool = prim::Constant[value=1]()
      %v : Tensor = aten::transpose(%x, %0, %1)
)IR";
  // Each tail follows `head`, one line per statement.
  const char* escaping[] = {
      "return (%v)",                                          // returned
      "%w : Tensor = aten::select(%v, %0, %0)|return (%w)",   // view returned
      "%w : Tensor = aten::relu_(%v)|return (%x)",            // written
      "%w : Tensor[] = prim::ListConstruct(%v)|return (%w)",  // in a list
      "%w : Tensor[] = aten::append(%l, %v)|return (%x)",     // appended
      "%w : Tensor[] = aten::split(%v, %1, %0)|return (%x)",  // list of views
      "%w : Tensor = aten::copy_(%v, %x, %t)|return (%x)",    // copied into
      // lists that may let it out: returned, read by __getitem__, appended to
      // with the result used, a caller's list
      "%w : Tensor[] = prim::ListConstruct(%v)|%c : Tensor = aten::cat(%w, %0)|return (%c, %w)",
      "%w : Tensor[] = prim::ListConstruct(%v)|%c : Tensor = aten::__getitem__(%w, %0)|return (%c)",
      "%w : Tensor[] = prim::ListConstruct()|%a : Tensor[] = aten::append(%w, %v)|return (%a)",
      "%w : Tensor[] = aten::append(%l, %v)|%c : Tensor = aten::cat(%l, %0)|return (%c)",
      "%w : Tensor = prim::If(%t)|  block0():|    -> (%v)|  block1():|    -> (%x)|return (%w)",
      // an if's result written in place, or carried by a loop
      "%w : Tensor = prim::If(%t)|  block0():|    -> (%v)|  block1():|    -> (%x)|"
      "%u : Tensor = aten::relu_(%w)|return (%x)",
      "%w : Tensor = prim::Loop(%1, %t, %v)|  block0(%i : int, %a : Tensor):|    -> (%t, %a)|"
      "return (%x)",
  };
  for (const char* tail : escaping) {
    std::string body = tail;
    for (size_t at = 0; (at = body.find('|', at)) != std::string::npos;) {
      body.replace(at, 1, "\n      ");
    }
    EXPECT_FALSE(OnlyRead(head + "      " + body)) << tail;
  }
  EXPECT_FALSE(OnlyRead(R"IR(
    graph(%x : Tensor):
      %v : int = aten::dim(%x)
      return (%v))IR"));  // not a tensor
}

}  // namespace
}  // namespace static_runtime
