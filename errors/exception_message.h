// ExceptionMessage: the message of an exception thrown by LibTorch, without
// the C++ backtrace that c10::Error::what() appends; FirstLine and
// ErrorHeadline: a long message in one line; StatusException: an
// absl::Status thrown through code that speaks exceptions (a forked call's
// error rethrown at its wait) keeping its code. Used wherever an exception
// becomes an absl::Status.
#ifndef STATIC_RUNTIME_ERRORS_EXCEPTION_MESSAGE_H_
#define STATIC_RUNTIME_ERRORS_EXCEPTION_MESSAGE_H_

#include <exception>
#include <stdexcept>
#include <string>

#include "absl/status/status.h"
#include "c10/util/Exception.h"

namespace static_runtime {

class StatusException : public std::runtime_error {
 public:
  explicit StatusException(const absl::Status& status)
      : std::runtime_error(std::string(status.message())), code_(status.code()) {}
  absl::StatusCode code() const { return code_; }

 private:
  absl::StatusCode code_;
};

inline std::string ExceptionMessage(const std::exception& e) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) {
    return c10_error->what_without_backtrace();
  }
  return e.what();
}

// The first line of a (possibly multi-line, backtrace-carrying) error message.
inline std::string FirstLine(const std::string& message) {
  // The first line with text: LibTorch's loaders start some messages with
  // a line break ("\nUnknown builtin op: torchvision::nms.").
  const size_t start = message.find_first_not_of(" \n");
  if (start == std::string::npos) return "";
  return message.substr(start, message.find('\n', start) - start);
}

// What an error message says, in one line: for the interpreter's report of a
// failed operation ("The following operation failed in the TorchScript
// interpreter." and two tracebacks), its last line with text, the error
// itself ("builtins.ValueError: ..."); for any other message, FirstLine.
inline std::string ErrorHeadline(const std::string& message) {
  constexpr char kInterpreterFailure[] =
      "The following operation failed in the TorchScript interpreter.";
  if (message.rfind(kInterpreterFailure, 0) != 0) return FirstLine(message);
  const size_t end = message.find_last_not_of(" \n");
  const size_t start = message.rfind('\n', end);
  return FirstLine(message.substr(start == std::string::npos ? 0 : start + 1, end - start));
}

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_ERRORS_EXCEPTION_MESSAGE_H_
