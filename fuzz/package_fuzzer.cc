// libFuzzer target: bytes as a compiled package (runtime/package.h, what
// `sr compile` writes) -> load -> run. A damaged or malformed package must
// give an error status, never a crash, a hang or a sanitizer report.
#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "fuzz/fuzz_run.h"
#include "runtime/package.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<static_runtime::StaticModule::Ptr> module =
      static_runtime::LoadPackageBytes(bytes);
  if (module.ok()) static_runtime::fuzz::RunPrepared(*module);
  return 0;
}
