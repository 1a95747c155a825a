#include "ops/nn/group_norm_rows_impl.h"

namespace static_runtime {
namespace ops {

GroupNormRowsKernel GroupNormRowsAvx2() {
  return {CPU_CAPABILITY::GroupNormRowsImpl<CPU_CAPABILITY::RowVectors>, "avx2"};
}

}  // namespace ops
}  // namespace static_runtime
