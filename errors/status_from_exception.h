// StatusFromException: the one way a caught exception becomes an
// absl::Status, at every catch site (where LibTorch, which throws, meets code
// that returns statuses).
//
// The code says what failed (the README's status table): a Status rethrown
// as a StatusException keeps its code; the model's own raise or assert
// (torch::jit::JITException) is kAborted; an index or key out of range
// (std::out_of_range, c10::IndexError) kOutOfRange; a failed allocation
// (std::bad_alloc, c10::OutOfMemoryError, LibTorch's CPU allocator's
// error) kResourceExhausted; a LibTorch internal assert kInternal. Any other
// exception gets `code` when the catch site gives one (what its failure
// means there: kInvalidArgument when what it was reading is bad), else
// kInvalidArgument for a LibTorch error (c10::Error: what a kernel rejects
// of its inputs) and kInternal for anything else (a bug of ours).
//
// The message is `context` followed by the exception's message without
// LibTorch's backtrace (only its first line with kFirstLine: LibTorch's
// loaders append pages of detail).
#ifndef STATIC_RUNTIME_ERRORS_STATUS_FROM_EXCEPTION_H_
#define STATIC_RUNTIME_ERRORS_STATUS_FROM_EXCEPTION_H_

#include <exception>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "c10/util/Exception.h"
#include "errors/exception_message.h"
#include "torch/csrc/jit/runtime/jit_exception.h"

namespace static_runtime {

enum class MessageLines { kAll, kFirstLine };

inline absl::StatusCode StatusCodeOf(const std::exception& e,
                                     std::optional<absl::StatusCode> code = std::nullopt) {
  if (const auto* status = dynamic_cast<const StatusException*>(&e)) return status->code();
  if (dynamic_cast<const torch::jit::JITException*>(&e) != nullptr) {
    return absl::StatusCode::kAborted;
  }
  if (dynamic_cast<const std::out_of_range*>(&e) != nullptr ||
      dynamic_cast<const c10::IndexError*>(&e) != nullptr) {
    return absl::StatusCode::kOutOfRange;
  }
  if (dynamic_cast<const std::bad_alloc*>(&e) != nullptr ||
      dynamic_cast<const c10::OutOfMemoryError*>(&e) != nullptr) {
    return absl::StatusCode::kResourceExhausted;
  }
  if (const auto* error = dynamic_cast<const c10::Error*>(&e)) {
    const std::string& message = error->msg();
    // LibTorch's CPU allocator reports a failed allocation as a plain error.
    if (absl::StrContains(message, "can't allocate memory") ||
        absl::StrContains(message, "not enough memory")) {
      return absl::StatusCode::kResourceExhausted;
    }
    if (absl::StrContains(message, "INTERNAL ASSERT FAILED")) return absl::StatusCode::kInternal;
    return code.value_or(absl::StatusCode::kInvalidArgument);
  }
  return code.value_or(absl::StatusCode::kInternal);
}

inline absl::Status StatusFromException(const std::exception& e, absl::string_view context,
                                        std::optional<absl::StatusCode> code = std::nullopt,
                                        MessageLines lines = MessageLines::kAll) {
  const std::string message = ExceptionMessage(e);
  return absl::Status(
      StatusCodeOf(e, code),
      absl::StrCat(context, lines == MessageLines::kAll ? message : FirstLine(message)));
}

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_ERRORS_STATUS_FROM_EXCEPTION_H_
