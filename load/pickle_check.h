// A walk over a pickle's opcodes (protocol 2, as TorchScript archives and
// compiled packages hold them) before LibTorch's unpickler reads it. The
// unpickler allocates whatever a length field or memo index asks for before
// reading a byte of it: a 10-byte change in a pickle made it ask for 10 GB
// (found by //fuzz:package_records_fuzzer). This check refuses a pickle in
// which a string, bytes or integer payload runs past the end, a memo index
// skips ahead of the entries stored so far or refers to none, or an opcode is
// one this kind of pickle never holds.
#ifndef STATIC_RUNTIME_LOAD_PICKLE_CHECK_H_
#define STATIC_RUNTIME_LOAD_PICKLE_CHECK_H_

#include <cstddef>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace static_runtime {

// OK, or InvalidArgument naming the opcode and its offset.
absl::Status CheckPickle(absl::string_view pickle);

// The same pickle, checked as CheckPickle does, with each APPEND and SETITEM
// (Python's pickler writes them for a one-item list and a one-entry dict;
// LibTorch 1.13's unpickler does not know them) written as the APPENDS and
// SETITEMS of one item: a MARK before the operands, the plural opcode after.
absl::StatusOr<std::string> WithPluralOpcodes(absl::string_view pickle);

// Reads `pickle`'s bytes in order into the buffers LibTorch's Unpickler asks
// for (its `reader`); `pickle` must outlive it.
std::function<size_t(char*, size_t)> PickleReader(absl::string_view pickle);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_LOAD_PICKLE_CHECK_H_
