// libFuzzer target: bytes as TorchScript IR text -> prepare -> run. Malformed
// IR, a graph the runtime cannot run, or inputs it rejects must give an error
// status, never a crash, a hang or a sanitizer report.
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "fuzz/fuzz_run.h"
#include "runtime/static_module.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view ir(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<static_runtime::StaticModule::Ptr> module =
      static_runtime::StaticModule::FromIR(ir);
  if (module.ok()) static_runtime::fuzz::RunPrepared(*module);
  return 0;
}
