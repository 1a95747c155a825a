// The kernel coverage list (ops/README.md), generated from the registry so it
// can never drift from what is registered: every out-variant and native
// kernel, and the notable operators that deliberately stay in fallback.
#ifndef STATIC_RUNTIME_OPS_COVERAGE_H_
#define STATIC_RUNTIME_OPS_COVERAGE_H_

#include <string>

namespace static_runtime {

std::string CoverageMarkdown();

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_COVERAGE_H_
