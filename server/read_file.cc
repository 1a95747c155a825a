#include "server/read_file.h"

#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"

namespace static_runtime {
namespace server {

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream bytes;
  bytes << file.rdbuf();
  if (!file) return absl::NotFoundError(absl::StrCat("cannot read ", path));
  return bytes.str();
}

}  // namespace server
}  // namespace static_runtime
