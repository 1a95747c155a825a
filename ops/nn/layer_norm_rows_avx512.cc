#include "ops/nn/layer_norm_rows_impl.h"

namespace static_runtime {
namespace ops {

LayerNormRowsKernel LayerNormRowsAvx2OrderOnAvx512() {
  return {CPU_CAPABILITY::LayerNormRowsImpl<CPU_CAPABILITY::PairedAvx2Vectors>,
          "avx2 order on avx512"};
}

}  // namespace ops
}  // namespace static_runtime
