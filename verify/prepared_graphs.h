// Golden prepared graphs: golden/prepared/<model>.ir holds the graph each
// corpus model (golden/models) becomes after preparation with default options,
// so every change to the pipeline shows up as a reviewable diff. The test
// (prepared_graphs_test) compares; verify/update_golden rewrites the files.
#ifndef STATIC_RUNTIME_VERIFY_PREPARED_GRAPHS_H_
#define STATIC_RUNTIME_VERIFY_PREPARED_GRAPHS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "verify/corpus.h"

namespace static_runtime {
namespace golden {

// The golden text of `model`'s forward after PrepareModule with default
// options (the module built from source, then frozen), or the error.
absl::StatusOr<std::string> PreparedGraphText(const corpus::Model& model);

// `<root>/<model name>.ir`.
std::string PreparedGraphPath(const std::string& root, const std::string& model_name);

// The model names of the `.ir` files under `root`, sorted.
absl::StatusOr<std::vector<std::string>> ListPreparedGraphs(const std::string& root);

}  // namespace golden
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_VERIFY_PREPARED_GRAPHS_H_
