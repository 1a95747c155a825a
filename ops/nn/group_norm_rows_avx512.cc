#include "ops/nn/group_norm_rows_impl.h"

namespace static_runtime {
namespace ops {

GroupNormRowsKernel GroupNormRowsAvx2OrderOnAvx512() {
  return {CPU_CAPABILITY::GroupNormRowsImpl<CPU_CAPABILITY::PairedAvx2Vectors>,
          "avx2 order on avx512"};
}

}  // namespace ops
}  // namespace static_runtime
