#include "ops/elementwise/pointwise_eval_impl.h"

namespace static_runtime {
namespace ops {

PointwiseRangeFn PointwiseRangeAvx512() { return CPU_CAPABILITY::EvaluateRange; }

}  // namespace ops
}  // namespace static_runtime
