#include "ops/rnn/lstm_gates_impl.h"

namespace static_runtime {
namespace ops {

LstmIsaKernels LstmKernelsAvx2() { return CPU_CAPABILITY::Kernels<16>("avx2"); }
FastRnnSteps FastRnnStepsAvx2() { return CPU_CAPABILITY::FastKernels("avx2 fast gates"); }

}  // namespace ops
}  // namespace static_runtime
