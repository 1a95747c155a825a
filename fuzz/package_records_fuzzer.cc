// libFuzzer target: a compiled package's records rather than its zip file,
// so that mutations reach the parsers of metadata.json, graph.ir,
// values.pkl, packed.json and the rest past the zip's checksums (which stop
// nearly every mutation of a whole package, see package_fuzzer.cc). The
// records are zipped as `sr compile` zips them, then loaded and run. A
// malformed package must give an error status, never a crash, a hang or a
// sanitizer report.
//
// Input: records, each a line "@@record NAME" followed by its bytes up to the
// next such line (tools/fuzz_package_records.py makes seeds from packages).
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "caffe2/serialize/inline_container.h"
#include "fuzz/fuzz_run.h"
#include "runtime/package.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  std::string zip;
  try {
    caffe2::serialize::PyTorchStreamWriter writer([&zip](const void* bytes, size_t count) {
      zip.append(static_cast<const char*>(bytes), count);
      return count;
    });
    absl::flat_hash_set<std::string> names = {"version"};  // the writer's own
    for (absl::string_view record : absl::StrSplit(input, "@@record ", absl::SkipEmpty())) {
      const size_t end_of_name = record.find('\n');
      if (end_of_name == absl::string_view::npos || end_of_name == 0) continue;
      const std::string name(record.substr(0, end_of_name));
      if (!names.insert(name).second || absl::StrContains(name, '\0')) continue;
      const absl::string_view bytes = record.substr(end_of_name + 1);
      writer.writeRecord(name, bytes.data(), bytes.size());
    }
    writer.writeEndOfFile();
  } catch (const std::exception&) {
    return 0;  // records the writer refuses are not a package
  }
  absl::StatusOr<static_runtime::StaticModule::Ptr> module = static_runtime::LoadPackageBytes(zip);
  if (module.ok()) static_runtime::fuzz::RunPrepared(*module);
  return 0;
}
