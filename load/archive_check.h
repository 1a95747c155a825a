// Checks a TorchScript archive (a zip file, as torch.jit.save writes it)
// before LibTorch parses it: the zip directory must be well formed and every
// entry's data must match its CRC-32. LibTorch 1.13's loader trusts the
// records it reads and can corrupt memory on a damaged archive (found by
// //fuzz:model_fuzzer: a one-byte change in constants.pkl made torch.jit.load
// free an invalid pointer, in Python too); a damaged or truncated file fails
// this check with an error instead.
#ifndef STATIC_RUNTIME_LOAD_ARCHIVE_CHECK_H_
#define STATIC_RUNTIME_LOAD_ARCHIVE_CHECK_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace static_runtime {

// OK, or InvalidArgument naming what is damaged (and the entry).
absl::Status CheckArchive(absl::string_view bytes);

// One entry of a checked archive: its name and, if stored uncompressed (as
// torch.jit.save and compiled packages store them), its data within the
// archive's bytes.
struct ArchiveRecord {
  std::string name;
  bool stored = false;
  absl::string_view data;  // when stored
};

// CheckArchive's checks, and the entries in directory order.
absl::StatusOr<std::vector<ArchiveRecord>> IndexArchive(absl::string_view bytes);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_LOAD_ARCHIVE_CHECK_H_
