#include "runtime/reports/machine.h"

#include <cpuid.h>
#include <dlfcn.h>

#include <array>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "oneapi/dnnl/dnnl.h"

namespace static_runtime {
namespace reports {
namespace {

// OpenBLAS's x86-64 cores from least to most capable; cores of one rank
// use the same instructions (Haswell and Zen: AVX2 with FMA).
constexpr std::array<std::pair<const char*, int>, 17> kCoreRanks = {{
    {"prescott", 0},
    {"core2", 1},
    {"penryn", 1},
    {"dunnington", 1},
    {"atom", 1},
    {"nehalem", 2},
    {"barcelona", 2},
    {"bobcat", 2},
    {"sandybridge", 3},
    {"bulldozer", 3},
    {"piledriver", 3},
    {"steamroller", 3},
    {"excavator", 3},
    {"haswell", 4},
    {"zen", 4},
    {"skylakex", 5},
    {"cooperlake", 6},
}};

int CoreRank(const std::string& core) {
  const std::string lower = absl::AsciiStrToLower(core);
  for (const auto& [name, rank] : kCoreRanks) {
    if (lower == name) return rank;
  }
  return -1;
}

// A C function OpenBLAS exports that returns a string, looked up rather than
// linked: LibTorch may run on another BLAS.
std::string OpenBlasString(const char* symbol) {
  using Getter = const char* (*)();
  auto getter = reinterpret_cast<Getter>(dlsym(RTLD_DEFAULT, symbol));
  if (getter == nullptr) return "";
  const char* value = getter();
  return value == nullptr ? "" : std::string(absl::StripAsciiWhitespace(value));
}

bool HasAvx512Bf16() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) == 0) return false;
  return (eax & (1u << 5)) != 0;
}

std::string IsaName(dnnl_cpu_isa_t isa) {
  switch (isa) {
    case dnnl_cpu_isa_sse41:
      return "sse41";
    case dnnl_cpu_isa_avx:
      return "avx";
    case dnnl_cpu_isa_avx2:
      return "avx2";
    case dnnl_cpu_isa_avx2_vnni:
      return "avx2_vnni";
    case dnnl_cpu_isa_avx512_mic:
      return "avx512_mic";
    case dnnl_cpu_isa_avx512_mic_4ops:
      return "avx512_mic_4ops";
    case dnnl_cpu_isa_avx512_core:
      return "avx512_core";
    case dnnl_cpu_isa_avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl_cpu_isa_avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl_cpu_isa_avx512_core_amx:
      return "avx512_core_amx";
    default:
      return absl::StrCat("isa 0x", absl::Hex(static_cast<int>(isa)));
  }
}

}  // namespace

std::string BestOpenBlasCore() {
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  if (avx512) return HasAvx512Bf16() ? "Cooperlake" : "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    return __builtin_cpu_is("amd") ? "Zen" : "Haswell";
  }
  if (__builtin_cpu_supports("avx")) return "Sandybridge";
  if (__builtin_cpu_supports("sse4.2")) return "Nehalem";
  return "Prescott";
}

bool OpenBlasCoreBelow(const std::string& core, const std::string& best) {
  const int rank = CoreRank(core), best_rank = CoreRank(best);
  return rank >= 0 && best_rank >= 0 && rank < best_rank;
}

MachineKernels DescribeMachineKernels() {
  MachineKernels kernels;
  kernels.openblas_core = OpenBlasString("openblas_get_corename");
  kernels.openblas_config = OpenBlasString("openblas_get_config");
  kernels.best_openblas_core = BestOpenBlasCore();
  kernels.onednn_isa = IsaName(dnnl_get_effective_cpu_isa());
  return kernels;
}

std::string FormatMachineKernels(const MachineKernels& kernels) {
  const std::string blas =
      kernels.openblas_core.empty()
          ? std::string("BLAS: not OpenBLAS")
          : absl::StrCat("OpenBLAS core ", kernels.openblas_core, " (this CPU runs up to ",
                         kernels.best_openblas_core, ")");
  return absl::StrCat(blas, ", oneDNN ", kernels.onednn_isa);
}

std::string SlowBlasWarning(const MachineKernels& kernels) {
  if (!OpenBlasCoreBelow(kernels.openblas_core, kernels.best_openblas_core)) return "";
  return absl::StrCat("warning: OpenBLAS runs its ", kernels.openblas_core,
                      " kernels on a CPU that runs ", kernels.best_openblas_core,
                      ": ATen's matrix products (the JIT's and PyTorch's Static Runtime's) are "
                      "slower than this machine allows, which flatters this runtime; rerun with "
                      "--blas-core=best (or OPENBLAS_CORETYPE=",
                      kernels.best_openblas_core, ")");
}

}  // namespace reports
}  // namespace static_runtime
