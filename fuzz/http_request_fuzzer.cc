// libFuzzer target: the HTTP transport's decoding of an inference request
// (server/http_frontend.h): the JSON header with its tensors, and the
// binary tensor data extension's split of the body. Any bytes must give a
// request or an error status, never a crash, a hang, a sanitizer report or
// an allocation beyond the limits.
//
// Input: a first line holding the Inference-Header-Content-Length ("-" for
// none), then the body.
#include <cstddef>
#include <cstdint>
#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/string_view.h"
#include "server/http_frontend.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t end_of_line = input.find('\n');
  if (end_of_line == absl::string_view::npos) return 0;
  std::optional<size_t> header_length;
  size_t length = 0;
  if (absl::SimpleAtoi(input.substr(0, end_of_line), &length)) header_length = length;
  static_runtime::server::ServerLimits limits;
  limits.max_elements = 1 << 16;
  (void)static_runtime::server::DecodeHttpRequest(input.substr(end_of_line + 1), header_length,
                                                  limits);
  return 0;
}
