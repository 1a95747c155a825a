// Every preparation pass by name, as run by the golden IR tests
// (golden/passes/<name>/), the pass property tests and verify/update_golden:
// the rows of passes/pass_table.h, then "check_static_runnable" (the final
// check) and "pipeline" (the whole preparation of a graph with default options).
#ifndef STATIC_RUNTIME_VERIFY_PASS_TABLE_H_
#define STATIC_RUNTIME_VERIFY_PASS_TABLE_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "torch/csrc/jit/ir/ir.h"

namespace static_runtime {
namespace golden {

struct NamedPass {
  std::string name;
  // Rewrites the graph (possibly replacing it); an error for a rejected graph.
  std::function<absl::Status(std::shared_ptr<torch::jit::Graph>&)> run;
};

const std::vector<NamedPass>& Passes();

// The pass called `name`, or nullptr.
const NamedPass* FindPass(const std::string& name);

// The canonical text form of a graph used in golden files.
std::string GoldenText(torch::jit::Graph& graph);

// Runs pass `name` on IR text and returns the golden text of the result (or the
// error's message prefixed with "error: ").
std::string RunPassOnIR(const NamedPass& pass, const std::string& ir);

}  // namespace golden
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_VERIFY_PASS_TABLE_H_
