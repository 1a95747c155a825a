// `sr explain`: what the static runtime makes of a model: the prepared graph,
// every node's kernel kind and, for fallbacks, why, what its kernel's caches
// hold (plans per input shape, re-laid-out weights); and the graph as
// Graphviz DOT with nodes colored by kernel kind.
#ifndef STATIC_RUNTIME_RUNTIME_REPORTS_EXPLAIN_H_
#define STATIC_RUNTIME_RUNTIME_REPORTS_EXPLAIN_H_

#include <string>

#include "runtime/static_module.h"

namespace static_runtime {
namespace reports {

std::string Explain(const StaticModule& module);
// One line on what kernels' caches hold (StaticModule::KernelCaches), with
// the bound on plans per cache.
std::string FormatKernelCaches(const KernelCacheStats& caches, size_t shape_plans_per_kernel);
std::string ToDot(const StaticModule& module);

}  // namespace reports
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_REPORTS_EXPLAIN_H_
