// `sr explain`: what the static runtime makes of a model: the prepared graph,
// every node's kernel kind and, for fallbacks, why; and the graph as
// Graphviz DOT with nodes colored by kernel kind.
#ifndef STATIC_RUNTIME_RUNTIME_REPORTS_EXPLAIN_H_
#define STATIC_RUNTIME_RUNTIME_REPORTS_EXPLAIN_H_

#include <string>

#include "runtime/static_module.h"

namespace static_runtime {
namespace reports {

std::string Explain(const StaticModule& module);
std::string ToDot(const StaticModule& module);

}  // namespace reports
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_REPORTS_EXPLAIN_H_
