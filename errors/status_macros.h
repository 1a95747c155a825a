// RETURN_IF_ERROR and ASSIGN_OR_RETURN: the project's one way to pass an
// absl::Status up. Abseil 20220623 does not ship them publicly.
//
//   RETURN_IF_ERROR(ValidateOptions(options));      // returns the Status if not OK
//   ASSIGN_OR_RETURN(Module module, LoadModuleFromFile(path));
//   ASSIGN_OR_RETURN(graph, ParseGraphIR(text));     // into an existing variable
//
// Both evaluate their expression once; the enclosing function returns an
// absl::Status or an absl::StatusOr<T> (either converts from the Status).
#ifndef STATIC_RUNTIME_ERRORS_STATUS_MACROS_H_
#define STATIC_RUNTIME_ERRORS_STATUS_MACROS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define RETURN_IF_ERROR(expr)                                        \
  do {                                                               \
    const absl::Status& static_runtime_status_ = (expr);             \
    if (!static_runtime_status_.ok()) return static_runtime_status_; \
  } while (false)

#define STATIC_RUNTIME_STATUS_CONCAT_INNER(a, b) a##b
#define STATIC_RUNTIME_STATUS_CONCAT(a, b) STATIC_RUNTIME_STATUS_CONCAT_INNER(a, b)

#define ASSIGN_OR_RETURN(lhs, rexpr)    \
  STATIC_RUNTIME_ASSIGN_OR_RETURN_IMPL( \
      STATIC_RUNTIME_STATUS_CONCAT(static_runtime_statusor_, __LINE__), lhs, rexpr)

#define STATIC_RUNTIME_ASSIGN_OR_RETURN_IMPL(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                         \
  if (!statusor.ok()) return std::move(statusor).status();         \
  lhs = *std::move(statusor)

#endif  // STATIC_RUNTIME_ERRORS_STATUS_MACROS_H_
