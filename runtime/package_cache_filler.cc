// A helper process of //runtime:package_test: loads MODEL.pt through the
// model cache in CACHE_DIR (preparing and storing it on a miss). Several run
// at once to check that concurrent fillers all succeed.
//   package_cache_filler MODEL.pt CACHE_DIR
#include <iostream>

#include "runtime/model_cache.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: package_cache_filler MODEL.pt CACHE_DIR\n";
    return 2;
  }
  absl::StatusOr<static_runtime::StaticModule::Ptr> module =
      static_runtime::ModelCache(argv[2]).Load(argv[1]);
  if (!module.ok()) {
    std::cerr << module.status() << "\n";
    return 1;
  }
  return 0;
}
