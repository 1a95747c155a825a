#include "tools/sr/process_setup.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>

#include "ATen/Context.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "runtime/reports/machine.h"
#include "tools/sr/run_setup.h"

namespace static_runtime {
namespace sr {
namespace {

// OpenBLAS reads OPENBLAS_CORETYPE once, when LibTorch loads it (before
// main), so sr runs itself again with the variable set, then checks
// OpenBLAS took the core. 0 to go on, or an exit code.
int UseBlasCore(const std::string& wanted, char** argv) {
  const std::string core = wanted == "best" ? reports::BestOpenBlasCore() : wanted;
  const char* current = std::getenv("OPENBLAS_CORETYPE");
  if (current == nullptr || core != current) {
    if (setenv("OPENBLAS_CORETYPE", core.c_str(), /*overwrite=*/1) != 0) {
      return Fail(1, "--blas-core: cannot set OPENBLAS_CORETYPE");
    }
    execv("/proc/self/exe", argv);
    return Fail(1, absl::StrCat("--blas-core: cannot run sr again: ", std::strerror(errno)));
  }
  const reports::MachineKernels kernels = reports::DescribeMachineKernels();
  if (kernels.openblas_core.empty()) {
    return Fail(2, "--blas-core: LibTorch's BLAS is not OpenBLAS");
  }
  if (!absl::EqualsIgnoreCase(kernels.openblas_core, core)) {
    return Fail(2, absl::StrCat("--blas-core=", wanted, ": OpenBLAS runs ", kernels.openblas_core,
                                " instead of ", core,
                                " (a core it does not know, or one this CPU cannot run; this "
                                "CPU runs up to ",
                                kernels.best_openblas_core, ")"));
  }
  return 0;
}

// Each library registers its operators with the JIT when it loads, and
// stays loaded.
absl::Status LoadOpLibraries(const std::string& paths) {
  for (absl::string_view path : absl::StrSplit(paths, ',', absl::SkipEmpty())) {
    if (dlopen(std::string(path).c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("--op-libraries: cannot load ", path, ": ", dlerror()));
    }
  }
  return absl::OkStatus();
}

// LibTorch's engine by its name (c10::QEngine's, any case); an engine this
// LibTorch lacks is an error listing the ones it has.
absl::Status UseQuantizedEngine(const std::string& wanted) {
  std::vector<std::string> names;
  for (const at::QEngine engine : at::globalContext().supportedQEngines()) {
    const std::string name = c10::toString(engine);
    if (absl::EqualsIgnoreCase(name, wanted)) {
      at::globalContext().setQEngine(engine);
      return absl::OkStatus();
    }
    names.push_back(absl::AsciiStrToLower(name));
  }
  return absl::InvalidArgumentError(absl::StrCat("--quantized-engine=", wanted,
                                                 ": this LibTorch has the engines ",
                                                 absl::StrJoin(names, ", ")));
}

}  // namespace

std::vector<FlagSpec> ProcessFlags() {
  return {
      {"blas_core", FlagKind::kString, "",
       "run OpenBLAS (ATen's, the JIT's and PyTorch SR's matrix products) on this core: a name "
       "OPENBLAS_CORETYPE takes (Prescott, Haswell, SkylakeX, Cooperlake, Zen, ...) or best, "
       "the most capable one this CPU runs; sr runs itself again with OPENBLAS_CORETYPE set. "
       "Default for bench --against: best, unless OPENBLAS_CORETYPE is set"},
      {"op_libraries", FlagKind::kString, "",
       "shared libraries of custom operators, comma-separated, loaded before the model as "
       "Python's torch.ops.load_library loads them: torchvision's _C.so for a detection "
       "model's torchvision::nms and roi_align"},
      {"quantized_engine", FlagKind::kString, "",
       "the quantized engine (onednn, qnnpack, ...) set before a model loads: a quantized "
       "model's weights are packed for the engine current when it loads, so give the one it "
       "was saved for. Default: LibTorch's"},
  };
}

int SetUpProcess(const Args& args, char** argv) {
  // A comparison is fair by default: the JIT and PyTorch SR run their matrix
  // products on the best OpenBLAS core this CPU runs, unless the user chose
  // one (--blas-core or OPENBLAS_CORETYPE).
  const bool comparing = args.Declares("against") && args.Given("against");
  if (args.Given("blas_core")) {
    if (int code = UseBlasCore(args.String("blas_core"), argv)) return code;
  } else if (comparing && std::getenv("OPENBLAS_CORETYPE") == nullptr) {
    // (Only where LibTorch's BLAS is an OpenBLAS on a lesser core.)
    const reports::MachineKernels kernels = reports::DescribeMachineKernels();
    if (!kernels.openblas_core.empty() &&
        !absl::EqualsIgnoreCase(kernels.openblas_core, kernels.best_openblas_core)) {
      if (int code = UseBlasCore("best", argv)) return code;
    }
  }
  if (absl::Status loaded = LoadOpLibraries(args.String("op_libraries")); !loaded.ok()) {
    return Fail(2, std::string(loaded.message()));
  }
  if (args.Given("quantized_engine")) {
    if (absl::Status used = UseQuantizedEngine(args.String("quantized_engine")); !used.ok()) {
      return Fail(2, std::string(used.message()));
    }
  }
  return 0;
}

}  // namespace sr
}  // namespace static_runtime
