// Prints the kernel coverage list, or with --write rewrites ops/README.md in
// the workspace (bazel run //ops:coverage -- --write).
#include <fstream>
#include <iostream>
#include <string>

#include "ops/coverage.h"

int main(int argc, char** argv) {
  const std::string text = static_runtime::CoverageMarkdown(static_runtime::ReadKernelSources());
  const bool write = argc > 1 && std::string(argv[1]) == "--write";
  if (argc > 1 && !write) {
    std::cerr << "usage: coverage [--write]\n"
                 "  prints the kernel coverage list; --write rewrites ops/README.md\n";
    return std::string(argv[1]) == "--help" ? 0 : 2;
  }
  if (!write) {
    std::cout << text;
    return 0;
  }
  const char* workspace = std::getenv("BUILD_WORKSPACE_DIRECTORY");
  if (workspace == nullptr) {
    std::cerr << "--write needs `bazel run` (BUILD_WORKSPACE_DIRECTORY is not set)\n";
    return 1;
  }
  const std::string path = std::string(workspace) + "/ops/README.md";
  std::ofstream file(path);
  file << text;
  if (!file) {
    std::cerr << "cannot write " << path << "\n";
    return 1;
  }
  std::cout << "wrote " << path << "\n";
  return 0;
}
