// Which of the kernels' instruction sets this CPU executes: the AVX-512
// code (compiled with ATen's AVX512 flags: AVX-512 F, BW, VL and DQ, with
// FMA) and the AVX2 code (AVX2 with FMA). Every kernel that picks loops by
// the CPU asks here, so that no loop compiled for a set runs on a CPU that
// has only part of it. Each answer is computed once, in a translation unit
// compiled for the baseline ISA (so that a caller compiled for AVX-512 does not
// lend the test its instructions).
#ifndef STATIC_RUNTIME_OPS_CORE_CPU_ISA_H_
#define STATIC_RUNTIME_OPS_CORE_CPU_ISA_H_

namespace static_runtime {
namespace ops {

bool CpuRunsAvx512();
bool CpuRunsAvx2();

}  // namespace ops
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_OPS_CORE_CPU_ISA_H_
