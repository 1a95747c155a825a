#include "server/read_file.h"

#include <fstream>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "errors/status_macros.h"

namespace static_runtime {
namespace server {

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream bytes;
  bytes << file.rdbuf();
  if (!file) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  return bytes.str();
}

absl::StatusOr<std::string> ReadTokenFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  std::string token(absl::StripAsciiWhitespace(text));
  if (token.empty()) return absl::InvalidArgumentError(absl::StrCat(path, " holds no token"));
  return token;
}

}  // namespace server
}  // namespace static_runtime
