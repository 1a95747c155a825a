#include "runtime/reports/machine.h"

#include <cstdlib>
#include <string>

#include "ATen/ATen.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace static_runtime {
namespace reports {
namespace {

std::string Env(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "" : value;
}

TEST(MachineTest, RanksOpenBlasCores) {
  EXPECT_TRUE(OpenBlasCoreBelow("Prescott", "Cooperlake"));
  EXPECT_TRUE(OpenBlasCoreBelow("haswell", "SKYLAKEX"));
  EXPECT_TRUE(OpenBlasCoreBelow("Zen", "SkylakeX"));
  EXPECT_FALSE(OpenBlasCoreBelow("Haswell", "Zen"));  // the same instructions
  EXPECT_FALSE(OpenBlasCoreBelow("Cooperlake", "SkylakeX"));
  EXPECT_FALSE(OpenBlasCoreBelow("SkylakeX", "SkylakeX"));
  EXPECT_FALSE(OpenBlasCoreBelow("NoSuchCore", "Cooperlake"));
  EXPECT_FALSE(OpenBlasCoreBelow("Prescott", ""));
}

// Under the CPU matrix (tools/cpu_matrix.sh) this also shows that the
// environment each entry sets reaches OpenBLAS and oneDNN.
TEST(MachineTest, ReportsTheKernelsThisProcessRuns) {
  at::mm(at::rand({4, 4}), at::rand({4, 4}));  // OpenBLAS is loaded with LibTorch
  const MachineKernels kernels = DescribeMachineKernels();
  ASSERT_FALSE(kernels.openblas_core.empty()) << "LibTorch is not running on OpenBLAS";
  EXPECT_TRUE(absl::StrContains(kernels.openblas_config, "OpenBLAS")) << kernels.openblas_config;
  EXPECT_FALSE(kernels.onednn_isa.empty());
  EXPECT_FALSE(absl::StartsWith(kernels.onednn_isa, "isa 0x")) << kernels.onednn_isa;
  const std::string forced_core = Env("OPENBLAS_CORETYPE");
  if (!forced_core.empty()) {
    EXPECT_TRUE(absl::EqualsIgnoreCase(kernels.openblas_core, forced_core))
        << kernels.openblas_core << " vs OPENBLAS_CORETYPE=" << forced_core;
  }
  const std::string isa_cap = Env("DNNL_MAX_CPU_ISA");  // oneDNN 2.6's name
  if (absl::EqualsIgnoreCase(isa_cap, "AVX2")) {
    EXPECT_EQ(kernels.onednn_isa, "avx2");
  }
  // The best core never ranks below the one OpenBLAS detected by itself.
  if (forced_core.empty()) {
    EXPECT_FALSE(OpenBlasCoreBelow(kernels.best_openblas_core, kernels.openblas_core));
  }
}

TEST(MachineTest, WarnsOnlyBelowTheBestCore) {
  MachineKernels kernels;
  kernels.openblas_core = "Prescott";
  kernels.best_openblas_core = "Cooperlake";
  kernels.onednn_isa = "avx512_core_amx";
  const std::string warning = SlowBlasWarning(kernels);
  EXPECT_TRUE(absl::StrContains(warning, "Prescott")) << warning;
  EXPECT_TRUE(absl::StrContains(warning, "--blas-core=best")) << warning;
  EXPECT_EQ(FormatMachineKernels(kernels),
            "OpenBLAS core Prescott (this CPU runs up to Cooperlake), oneDNN avx512_core_amx");
  kernels.openblas_core = "Cooperlake";
  EXPECT_EQ(SlowBlasWarning(kernels), "");
  kernels.openblas_core = "";
  EXPECT_EQ(SlowBlasWarning(kernels), "");
  EXPECT_EQ(FormatMachineKernels(kernels), "BLAS: not OpenBLAS, oneDNN avx512_core_amx");
}

}  // namespace
}  // namespace reports
}  // namespace static_runtime
