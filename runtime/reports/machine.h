// What this machine runs matrix products on, so that a speed figure says
// which kernels it was measured with: the kernel set ("core") OpenBLAS chose
// when it loaded (ATen's products, so the JIT's and PyTorch's Static
// Runtime's, run on it), the best core this CPU could run, and the ISA
// oneDNN (this runtime's convolutions and linears) runs. Debian's OpenBLAS
// 0.3.21 does not recognise some newer Xeons and falls back to its SSE3
// `Prescott` kernels there; `OPENBLAS_CORETYPE` (read once, when the library
// loads) picks another core, `ONEDNN_MAX_CPU_ISA` caps oneDNN.
//
// `sr bench`, `sr profile` and the Python package's build_info() print it;
// `sr --blas-core=NAME|best` re-runs itself with OPENBLAS_CORETYPE set.
#ifndef STATIC_RUNTIME_RUNTIME_REPORTS_MACHINE_H_
#define STATIC_RUNTIME_RUNTIME_REPORTS_MACHINE_H_

#include <string>

namespace static_runtime {
namespace reports {

struct MachineKernels {
  std::string openblas_core;       // openblas_get_corename(); empty: BLAS is not OpenBLAS
  std::string openblas_config;     // openblas_get_config(), e.g. "OpenBLAS 0.3.21 DYNAMIC_ARCH ..."
  std::string best_openblas_core;  // the most capable core this CPU runs (BestOpenBlasCore)
  std::string onednn_isa;          // dnnl_get_effective_cpu_isa(), e.g. "avx512_core_amx"
};

MachineKernels DescribeMachineKernels();

// The most capable x86-64 OpenBLAS core this CPU's instruction set runs, by
// its CPUID flags: Cooperlake (AVX-512 with BF16), SkylakeX (AVX-512 F, BW,
// VL, DQ), Haswell (AVX2 and FMA; Zen on AMD), Sandybridge (AVX), Nehalem
// (SSE4.2), else Prescott.
std::string BestOpenBlasCore();

// Whether `core` is a kernel set older than `best` (both OpenBLAS core names,
// case-insensitive); false when either is unknown.
bool OpenBlasCoreBelow(const std::string& core, const std::string& best);

// One line: "OpenBLAS core Prescott (this CPU runs up to Cooperlake), oneDNN
// avx512_core_amx".
std::string FormatMachineKernels(const MachineKernels& kernels);

// A warning for a benchmark against PyTorch's Static Runtime or the JIT when
// OpenBLAS runs below the best core (their products would be slower than the
// machine allows); empty otherwise.
std::string SlowBlasWarning(const MachineKernels& kernels);

}  // namespace reports
}  // namespace static_runtime

#endif  // STATIC_RUNTIME_RUNTIME_REPORTS_MACHINE_H_
