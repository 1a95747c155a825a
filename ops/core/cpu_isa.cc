#include "ops/core/cpu_isa.h"

namespace static_runtime {
namespace ops {

bool CpuRunsAvx512() {
  static const bool runs = __builtin_cpu_supports("avx512f") &&
                           __builtin_cpu_supports("avx512vl") &&
                           __builtin_cpu_supports("avx512bw") &&
                           __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("fma");
  return runs;
}

bool CpuRunsAvx2() {
  static const bool runs = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  return runs;
}

}  // namespace ops
}  // namespace static_runtime
