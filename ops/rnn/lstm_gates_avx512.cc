#include "ops/rnn/lstm_gates_impl.h"

namespace static_runtime {
namespace ops {

LstmIsaKernels LstmKernelsAvx512() { return CPU_CAPABILITY::Kernels<32>("avx512"); }
LstmIsaKernels LstmKernelsAvx512InAvx2Loops() {
  return CPU_CAPABILITY::Kernels<16>("avx512 in avx2 loops");
}
FastRnnSteps FastRnnStepsAvx512() { return CPU_CAPABILITY::FastKernels("avx512 fast gates"); }

}  // namespace ops
}  // namespace static_runtime
