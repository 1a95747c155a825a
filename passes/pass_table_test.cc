// The pass table is the one list of our passes: every enabling option is a
// real option, names are unique, and docs/preparing.md's pass table lists the same
// passes in the same order with the same options, and the unrolling bounds
// the code has.
#include "passes/pass_table.h"

#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "gtest/gtest.h"
#include "passes/unroll_constant_loops.h"
#include "torch/csrc/jit/ir/irparser.h"

namespace static_runtime {
namespace {

struct ReadmeRow {
  std::string pass;
  std::string option;
};

// The rows of the docs/preparing.md table headed "| pass | option | rewrite |": the
// first `quoted` word of each column.
std::vector<ReadmeRow> ReadmePassRows() {
  std::ifstream file("docs/preparing.md");
  EXPECT_TRUE(file) << "docs/preparing.md is missing";
  std::vector<ReadmeRow> rows;
  bool in_table = false;
  for (std::string line; std::getline(file, line);) {
    if (line == "| pass | option | rewrite |") {
      in_table = true;
      continue;
    }
    if (!in_table || line == "|---|---|---|") continue;
    if (!absl::StartsWith(line, "|")) break;
    std::vector<std::string> cells = absl::StrSplit(line, " | ");
    if (cells.size() < 3) break;
    auto first_word = [](absl::string_view cell) {
      cell = absl::StripPrefix(cell, "| ");
      if (!absl::ConsumePrefix(&cell, "`")) return std::string(cell.substr(0, cell.find(' ')));
      return std::string(cell.substr(0, cell.find('`')));
    };
    rows.push_back({first_word(cells[0]), first_word(cells[1])});
  }
  return rows;
}

TEST(PassTableTest, EveryEnablingOptionIsABoolOption) {
  std::set<std::string> names;
  for (const RewritePass& pass : RewritePasses()) {
    EXPECT_TRUE(names.insert(pass.name).second) << "two passes named " << pass.name;
    const std::string option = EnablingOption(pass);
    EXPECT_TRUE(option == "always" || FindBoolOption(option) != nullptr) << pass.name;
  }
}

TEST(PassTableTest, ReadmeListsEveryPassInOrderWithItsOption) {
  // Pipeline steps that are not table rows: inlining forks happens while
  // freezing too, and the final check is not a rewrite.
  const std::set<std::string> documented_elsewhere = {"inline_forks", "check_static_runnable"};
  std::vector<ReadmeRow> rows;
  for (const ReadmeRow& row : ReadmePassRows()) {
    if (!documented_elsewhere.count(row.pass)) rows.push_back(row);
  }
  const std::vector<RewritePass>& passes = RewritePasses();
  ASSERT_EQ(rows.size(), passes.size()) << "docs/preparing.md's pass table has other passes";
  for (size_t i = 0; i < passes.size(); ++i) {
    EXPECT_EQ(rows[i].pass, passes[i].name) << "row " << i;
    EXPECT_EQ(rows[i].option, EnablingOption(passes[i])) << passes[i].name;
  }
}

// docs/preparing.md's row for unroll_constant_loops states the pass's bounds.
TEST(PassTableTest, ReadmeStatesTheUnrollingBounds) {
  std::ifstream file("docs/preparing.md");
  ASSERT_TRUE(file) << "docs/preparing.md is missing";
  std::string row;
  for (std::string line; std::getline(file, line);) {
    if (absl::StartsWith(line, "| `unroll_constant_loops` |")) row = line;
  }
  EXPECT_TRUE(absl::StrContains(
      row, absl::StrCat("within ", kMaxUnrolledTrips, " trips and ", kMaxUnrolledNodes, " nodes")))
      << row;
}

std::shared_ptr<torch::jit::Graph> CatOfTwo() {
  auto graph = std::make_shared<torch::jit::Graph>();
  torch::jit::parseIR(R"IR(
graph(%a : Tensor, %b : Tensor):
  %dim : int = prim::Constant[value=0]()
  %list : Tensor[] = prim::ListConstruct(%a, %b)
  %y : Tensor = aten::cat(%list, %dim)
  return (%y, %a)
)IR",
                      graph.get());
  return graph;
}

std::string OutputKind(const torch::jit::Graph& graph, size_t i) {
  return graph.outputs()[i]->node()->kind().toQualString();
}

TEST(PassTableTest, RunPassStageRunsTheEnabledPassesOfOneStage) {
  Options options;
  auto graph = CatOfTwo();
  RunPassStage(PassStage::kCleanup, graph, options);  // not a rewrite stage
  EXPECT_EQ(OutputKind(*graph, 0), "aten::cat");
  options.use_variadic_ops = false;
  RunPassStage(PassStage::kRewrite, graph, options);
  EXPECT_EQ(OutputKind(*graph, 0), "aten::cat");
  options.use_variadic_ops = true;
  RunPassStage(PassStage::kRewrite, graph, options);
  EXPECT_EQ(OutputKind(*graph, 0), "static_runtime::variadic_cat");
  EXPECT_EQ(graph->outputs()[1]->node()->kind(), c10::prim::Param);
  RunPassStage(PassStage::kFinalize, graph, options);  // owned_refs: always
  EXPECT_EQ(OutputKind(*graph, 1), "static_runtime::owned_ref");
}

}  // namespace
}  // namespace static_runtime
