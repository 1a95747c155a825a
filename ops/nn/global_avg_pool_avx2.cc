#include "ops/nn/global_avg_pool_impl.h"

namespace static_runtime {
namespace ops {

GlobalAvgPoolKernel GlobalAvgPoolAvx2() { return {CPU_CAPABILITY::GlobalAvgPoolImpl<8>, "avx2"}; }

}  // namespace ops
}  // namespace static_runtime
