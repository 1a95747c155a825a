// The option sets every differential check runs under: defaults, out variants
// off, memory planning off, managed output tensors, copy variants off, all
// runtime rewrites off (every option of the pass table's rewrite stage, and
// parallel forks), list-unpack copies on, inference mode off and weight
// pre-packing off. Shared by golden/differential_test and the random
// graph property in fuzz/.
#ifndef STATIC_RUNTIME_GOLDEN_OPTION_SETS_H_
#define STATIC_RUNTIME_GOLDEN_OPTION_SETS_H_

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

#endif  // STATIC_RUNTIME_GOLDEN_OPTION_SETS_H_
