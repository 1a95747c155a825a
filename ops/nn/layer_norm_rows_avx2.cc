#include "ops/nn/layer_norm_rows_impl.h"

namespace static_runtime {
namespace ops {

LayerNormRowsKernel LayerNormRowsAvx2() {
  return {CPU_CAPABILITY::LayerNormRowsImpl<CPU_CAPABILITY::RowVectors>, "avx2"};
}

}  // namespace ops
}  // namespace static_runtime
