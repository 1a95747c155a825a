#include "verify/pass_table.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "errors/status_macros.h"
#include "load/load.h"
#include "passes/check_static_runnable.h"
#include "passes/pass_table.h"
#include "passes/prepare.h"

namespace static_runtime {
namespace golden {
namespace {

using GraphPtr = std::shared_ptr<torch::jit::Graph>;

}  // namespace

const std::vector<NamedPass>& Passes() {
  static const auto* const kPasses = [] {
    auto* passes = new std::vector<NamedPass>;
    for (const RewritePass& rewrite : RewritePasses()) {
      passes->push_back({rewrite.name, [run = rewrite.run](GraphPtr& graph) {
                           run(graph);
                           return absl::OkStatus();
                         }});
    }
    passes->push_back(
        {"check_static_runnable", [](GraphPtr& graph) { return CheckStaticRunnable(graph); }});
    passes->push_back({"pipeline", [](GraphPtr& graph) {
                         ASSIGN_OR_RETURN(PreparedGraph prepared, PrepareGraph(graph, Options()));
                         graph = prepared.graph;
                         return absl::OkStatus();
                       }});
    return passes;
  }();
  return *kPasses;
}

const NamedPass* FindPass(const std::string& name) {
  for (const NamedPass& pass : Passes()) {
    if (pass.name == name) return &pass;
  }
  return nullptr;
}

std::string GoldenText(torch::jit::Graph& graph) {
  std::string text = graph.toString(/*print_source_locations=*/false);
  // Object constants print their address, which changes from run to run.
  const std::string kObject = "object(0x";
  for (size_t at = text.find(kObject); at != std::string::npos; at = text.find(kObject, at + 1)) {
    const size_t digits = at + kObject.size() - 2;
    const size_t end = text.find(')', digits);
    if (end != std::string::npos) text.replace(digits, end - digits, "...");
  }
  return text;
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
