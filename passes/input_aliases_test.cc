// InputAliases on hand-written graphs: views alias, fresh results do not,
// containers contain, unpacking and indexing alias what a container holds,
// stores into containers, If and Loop outputs, and the case AliasDb gets
// wrong (a fresh tensor that was split is still not an input).
#include "passes/input_aliases.h"

#include <string>

#include "gtest/gtest.h"
#include "load/load.h"

namespace static_runtime {
namespace {

using torch::jit::Block;
using torch::jit::Graph;
using torch::jit::Node;
using torch::jit::Value;

// A value by its source name ("r" finds %r or %r.1).
Value* Find(Block* block, const std::string& name) {
  auto matches = [&](const Value* value) {
    const std::string& debug_name = value->debugName();
    return debug_name == name || debug_name.rfind(name + ".", 0) == 0;
  };
  for (Value* input : block->inputs()) {
    if (matches(input)) return input;
  }
  for (Node* node : block->nodes()) {
    for (Value* output : node->outputs()) {
      if (matches(output)) return output;
    }
    for (Block* sub : node->blocks()) {
      if (Value* found = Find(sub, name)) return found;
    }
  }
  return nullptr;
}

// Graph input 0 is `self`, so the first argument is input 1.
class InputAliasesTest : public testing::Test {
 protected:
  void Analyze(const std::string& source) {
    absl::StatusOr<torch::jit::Module> module = ModuleFromSource(source);
    ASSERT_TRUE(module.ok()) << module.status();
    graph_ = module->get_method("forward").graph();
    aliases_ = std::make_unique<InputAliases>(graph_);
  }
  Value* Named(const std::string& name) {
    Value* value = Find(graph_->block(), name);
    EXPECT_NE(value, nullptr) << name << " in\n" << graph_->toString();
    return value;
  }
  InputSet Aliases(const std::string& name) { return aliases_->Aliases(Named(name)); }
  InputSet Contains(const std::string& name) { return aliases_->Contains(Named(name)); }

  std::shared_ptr<Graph> graph_;
  std::unique_ptr<InputAliases> aliases_;
};

TEST_F(InputAliasesTest, ViewsAliasFreshResultsDoNot) {
  Analyze(R"(
def forward(self, x, y):
    r = torch.relu(x)
    t = y.t()
    tt = t.t()
    w = r.add_(x)
    return (r, tt, w)
)");
  EXPECT_EQ(Aliases("x"), InputSet({1}));
  EXPECT_EQ(Aliases("r"), InputSet());
  EXPECT_EQ(Aliases("t"), InputSet({2}));
  EXPECT_EQ(Aliases("tt"), InputSet({2}));
  EXPECT_EQ(Aliases("w"), InputSet());  // add_ returns its (fresh) self
}

TEST_F(InputAliasesTest, ConversionsThatMayCopyCountAsCopies) {
  Analyze(R"(
def forward(self, x):
    f = x.float()
    c = x.contiguous()
    r = x.reshape(-1)
    v = x.view(-1)
    f.div_(255.0)
    return (f, c, r, v)
)");
  EXPECT_EQ(Aliases("f"), InputSet());
  EXPECT_EQ(Aliases("c"), InputSet());
  EXPECT_EQ(Aliases("r"), InputSet());
  EXPECT_EQ(Aliases("v"), InputSet({1}));  // a view always aliases
}

TEST_F(InputAliasesTest, SplittingAFreshTensorDoesNotMakeItAnInput) {
  // AliasDb puts r into the wildcard set with the graph inputs here.
  Analyze(R"(
def forward(self, x):
    r = torch.relu(x)
    parts = torch.split(r, 1, 1)
    inputs = torch.split(x, 1, 1)
    first = inputs[0]
    a, b = torch.chunk(x, 2, 1)
    return (parts, first, a)
)");
  EXPECT_EQ(Aliases("r"), InputSet());
  EXPECT_EQ(Contains("parts"), InputSet());
  EXPECT_EQ(Aliases("inputs"), InputSet());  // the list itself is fresh
  EXPECT_EQ(Contains("inputs"), InputSet({1}));
  EXPECT_EQ(Aliases("first"), InputSet({1}));
  EXPECT_EQ(Aliases("a"), InputSet({1}));
  EXPECT_EQ(Aliases("b"), InputSet({1}));
}

TEST_F(InputAliasesTest, ContainersHoldAndStoreTheirElements) {
  Analyze(R"(
def forward(self, x, y):
    r = torch.relu(x)
    xs = [r]
    first = xs[0]
    xs.append(y)
    second = xs[0]
    ys = [r, x]
    return (first, second, xs, ys)
)");
  EXPECT_EQ(Aliases("first"), InputSet());  // read before y was stored
  EXPECT_EQ(Contains("xs"), InputSet({2}));
  EXPECT_EQ(Aliases("xs"), InputSet());  // writing the list writes no input
  EXPECT_EQ(Aliases("second"), InputSet({2}));
  EXPECT_EQ(Contains("ys"), InputSet({1}));
}

TEST_F(InputAliasesTest, UnpackingATupleInputIsPositionBlind) {
  Analyze(R"(
def forward(self, t: Tuple[Tensor, Tensor], x):
    u, v = t
    return (torch.relu(u), v, x)
)");
  EXPECT_EQ(Aliases("u"), InputSet({1}));
  EXPECT_EQ(Aliases("v"), InputSet({1}));
}

TEST_F(InputAliasesTest, DictInputsAndIndexing) {
  Analyze(R"(
def forward(self, d: Dict[str, Tensor]):
    value = d["a"]
    r = torch.relu(value)
    return (r, value)
)");
  EXPECT_EQ(Aliases("value"), InputSet({1}));
  EXPECT_EQ(Aliases("r"), InputSet());
}

TEST_F(InputAliasesTest, IfAndLoopOutputsTakeWhatTheirBlocksYield) {
  Analyze(R"(
def forward(self, x, c: bool, n: int):
    r = torch.relu(x)
    if c:
        chosen = r
    else:
        chosen = x.t()
    carried = r
    for i in range(n):
        carried = torch.relu(carried)
    p = torch.relu(r)
    q = chosen
    for j in range(n):
        p, q = q, p
    return (chosen, carried, p, q)
)");
  EXPECT_EQ(Aliases("chosen"), InputSet({1}));
  EXPECT_EQ(Aliases("carried"), InputSet());
  // p and q swap every iteration: both may end up aliasing x (a fixpoint).
  const Node* returned = graph_->outputs()[0]->node();  // the result tuple
  EXPECT_EQ(aliases_->Aliases(returned->input(2)), InputSet({1}));
  EXPECT_EQ(aliases_->Aliases(returned->input(3)), InputSet({1}));
}

// The loop of the graph's top block (the first, when several).
const Node* FirstLoop(const std::shared_ptr<Graph>& graph) {
  for (const Node* node : graph->nodes()) {
    if (node->kind() == c10::prim::Loop) return node;
  }
  ADD_FAILURE() << "no loop in\n" << graph->toString();
  return nullptr;
}

TEST_F(InputAliasesTest, ALoopBodySeesWhatTheIterationBeforeYielded) {
  // a is fresh when the loop starts; from the second iteration on it is x,
  // which a.add_ then writes.
  Analyze(R"(
def forward(self, x, n: int):
    a = torch.relu(x)
    b = x
    for i in range(n):
        a.add_(1.0)
        a, b = b, a
    return (a, b)
)");
  const Node* loop = FirstLoop(graph_);
  ASSERT_NE(loop, nullptr);
  const Block* body = loop->blocks()[0];
  EXPECT_EQ(aliases_->Aliases(body->inputs()[1]), InputSet({1}));  // a
  EXPECT_EQ(aliases_->Aliases(body->inputs()[2]), InputSet({1}));  // b
}

TEST_F(InputAliasesTest, ALoopBodySeesACarriedValueBecomeAViewOfAnInput) {
  Analyze(R"(
def forward(self, x, y, n: int):
    c = torch.relu(x)
    for i in range(n):
        c.mul_(2.0)
        c = y.t()
    return c
)");
  const Node* loop = FirstLoop(graph_);
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(aliases_->Aliases(loop->blocks()[0]->inputs()[1]), InputSet({2}));
  EXPECT_EQ(aliases_->Aliases(loop->output(0)), InputSet({2}));
}

}  // namespace
}  // namespace static_runtime
