// FuseListUnpack: a split or chunk whose list is only unpacked becomes one
// multi-output node returning copies; not where anything writes the input
// or a part, nor in a graph that reads strides (a copy is contiguous where
// the view was not).
#include "passes/fuse_list_unpack.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "load/load.h"
#include "torch/csrc/jit/passes/inliner.h"

namespace static_runtime {
namespace {

// The inlined forward graph of `source`.
std::shared_ptr<torch::jit::Graph> GraphOf(const std::string& source) {
  absl::StatusOr<torch::jit::Module> module = ModuleFromSource(source);
  EXPECT_TRUE(module.ok()) << module.status();
  std::shared_ptr<torch::jit::Graph> graph = module->get_method("forward").graph()->copy();
  torch::jit::Inline(*graph);
  return graph;
}

TEST(FuseListUnpackTest, AnUnpackedChunkBecomesOneNode) {
  std::shared_ptr<torch::jit::Graph> graph = GraphOf(R"(
def forward(self, x):
    a, b = torch.chunk(x, 2, 1)
    return a + 1.0, b
)");
  EXPECT_TRUE(FuseListUnpack(graph)) << graph->toString();
}

TEST(FuseListUnpackTest, NotInAGraphThatReadsStrides) {
  for (const char* read : {"int(a.is_contiguous())", "a.stride(0)"}) {
    std::shared_ptr<torch::jit::Graph> graph = GraphOf(absl::StrCat(R"(
def forward(self, x):
    a, b = torch.chunk(x, 2, 1)
    return b, )",
                                                                    read, "\n"));
    EXPECT_FALSE(FuseListUnpack(graph)) << graph->toString();
  }
}

TEST(FuseListUnpackTest, NotWhereAPartIsWritten) {
  std::shared_ptr<torch::jit::Graph> graph = GraphOf(R"(
def forward(self, x):
    y = x * 2.0
    a, b = torch.chunk(y, 2, 1)
    a.add_(1.0)
    return y, b
)");
  EXPECT_FALSE(FuseListUnpack(graph)) << graph->toString();
}

}  // namespace
}  // namespace static_runtime
