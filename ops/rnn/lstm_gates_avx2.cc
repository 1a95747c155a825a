#include "ops/rnn/lstm_gates_impl.h"

namespace static_runtime {
namespace ops {

LstmIsaKernels LstmKernelsAvx2() { return CPU_CAPABILITY::Kernels<16>("avx2"); }

}  // namespace ops
}  // namespace static_runtime
