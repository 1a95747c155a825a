// The option sets every differential check runs under: defaults, out variants
// off, memory planning off, managed output tensors, copy variants off, all
// runtime rewrites off (every option of the pass table's rewrite stage, and
// parallel forks), list-unpack copies on, inference mode off, weight
// pre-packing off, and the defaults with recycled memory poisoned (a use
// after recycling reads a NaN pattern; under ASan, a report). Shared by
// verify/differential_test, the random graph property in fuzz/, the
// runtime's comparisons with the JIT and `sr verify`.
#ifndef STATIC_RUNTIME_VERIFY_OPTION_SETS_H_
#define STATIC_RUNTIME_VERIFY_OPTION_SETS_H_

#include <string>
#include <vector>

#include "options/options.h"

namespace static_runtime {
namespace golden {

struct OptionSet {
  std::string name;
  Options options;
};

const std::vector<OptionSet>& OptionSets();

}  // namespace golden
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_VERIFY_OPTION_SETS_H_
