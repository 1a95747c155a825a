// The kernel coverage list (ops/README.md), generated from the registry so it
// can never drift from what is registered: every out-variant and native
// kernel, the notable operators that deliberately stay in fallback, and the
// map: the file that registers each kernel and the test beside that file.
#ifndef STATIC_RUNTIME_OPS_COVERAGE_H_
#define STATIC_RUNTIME_OPS_COVERAGE_H_

#include <string>
#include <vector>

namespace static_runtime {

// `source_files`: every source file of ops/ (workspace paths, as
// ops/kernel_sources.txt lists them), where the tests beside the kernels'
// files are looked up: <dir>/<stem>_test.cc, or <dir>/<stem>_*_test.cc.
std::string CoverageMarkdown(const std::vector<std::string>& source_files);

// The lines of ops/kernel_sources.txt (relative to the working directory,
// the runfiles root under `bazel run` and `bazel test`); empty if missing.
std::vector<std::string> ReadKernelSources();

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_COVERAGE_H_
