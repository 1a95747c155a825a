// A helper process of //runtime:package_test: loads MODEL.pt through the
// model cache in CACHE_DIR (preparing and storing it on a miss). Several run
// at once to check that concurrent fillers all succeed.
//   package_cache_filler MODEL.pt CACHE_DIR
#include <iostream>

#include "runtime/static_module.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: package_cache_filler MODEL.pt CACHE_DIR\n";
    return 2;
  }
  static_runtime::Options options;
  options.cache_dir = argv[2];
  absl::StatusOr<static_runtime::StaticModule::Ptr> module =
      static_runtime::StaticModule::FromFile(argv[1], options);
  if (!module.ok()) {
    std::cerr << module.status() << "\n";
    return 1;
  }
  return 0;
}
