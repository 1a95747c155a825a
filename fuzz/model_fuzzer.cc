// libFuzzer target: bytes as a serialized TorchScript archive (what
// torch.jit.save writes) -> load -> prepare -> run. A damaged archive or a
// model the runtime cannot run must give an error status, never a crash, a
// hang or a sanitizer report.
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "fuzz/fuzz_run.h"
#include "load/load.h"
#include "runtime/static_module.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<torch::jit::Module> loaded = static_runtime::LoadModuleFromBytes(bytes);
  if (!loaded.ok()) return 0;
  absl::StatusOr<static_runtime::StaticModule::Ptr> module =
      static_runtime::StaticModule::FromModule(*loaded, /*is_frozen=*/false);
  if (module.ok()) static_runtime::fuzz::RunPrepared(*module);
  return 0;
}
