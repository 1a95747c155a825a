// The op table of the random program generator: one OpRule per op, each
// emitting a well-typed statement (elementwise and broadcasting, comparisons
// and where, conversions, reductions, views and slices, lists, in-place ops,
// matmul and linear, If, loops, scalars) or declining when the program has no
// operand of the right kind.
#ifndef STATIC_RUNTIME_FUZZ_OP_RULES_H_
#define STATIC_RUNTIME_FUZZ_OP_RULES_H_

#include <vector>

#include "fuzz/program_builder.h"

namespace static_runtime {
namespace fuzz {

// Every rule, in the order a Gene's `op` indexes them.
const std::vector<OpRule>& Rules();

}  // namespace fuzz
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_FUZZ_OP_RULES_H_
