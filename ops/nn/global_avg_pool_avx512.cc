#include "ops/nn/global_avg_pool_impl.h"

namespace static_runtime {
namespace ops {

GlobalAvgPoolKernel GlobalAvgPoolAvx2OrderOnAvx512() {
  return {CPU_CAPABILITY::GlobalAvgPoolImpl<8>, "avx2 order on avx512"};
}

GlobalAvgPoolKernel GlobalAvgPoolAvx512() {
  return {CPU_CAPABILITY::GlobalAvgPoolImpl<16>, "avx512"};
}

}  // namespace ops
}  // namespace static_runtime
