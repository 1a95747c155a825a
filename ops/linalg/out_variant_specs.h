// The property specs of the linalg family's out-variant kernels (what
// //ops:out_variant_property_test draws for each), beside the kernels.
#ifndef STATIC_RUNTIME_OPS_LINALG_OUT_VARIANT_SPECS_H_
#define STATIC_RUNTIME_OPS_LINALG_OUT_VARIANT_SPECS_H_

#include <map>
#include <string>

#include "ops/core/out_variant_spec.h"

namespace static_runtime {
namespace testing {
namespace specs {

// "name.overload" (or node kind) -> its spec.
std::map<std::string, Spec> LinalgOutVariantSpecs();

}  // namespace specs
}  // namespace testing
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_LINALG_OUT_VARIANT_SPECS_H_
