// ExceptionMessage: the message of an exception thrown by LibTorch, without
// the C++ backtrace that c10::Error::what() appends. Used wherever a LibTorch
// exception becomes an absl::Status.
#ifndef STATIC_RUNTIME_PASSES_EXCEPTION_MESSAGE_H_
#define STATIC_RUNTIME_PASSES_EXCEPTION_MESSAGE_H_

#include <exception>
#include <string>

#include "c10/util/Exception.h"

namespace static_runtime {

inline std::string ExceptionMessage(const std::exception& e) {
  if (const auto* c10_error = dynamic_cast<const c10::Error*>(&e)) {
    return c10_error->what_without_backtrace();
  }
  return e.what();
}

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_PASSES_EXCEPTION_MESSAGE_H_
