#include "tools/intra_op_threads.h"

#include <dlfcn.h>

#include "ATen/Parallel.h"

namespace static_runtime {

bool SetIntraOpThreads(int threads) {
  at::set_num_threads(threads);
  // Looked up rather than linked: LibTorch may use another BLAS.
  using SetThreads = void (*)(int);
  auto set_blas_threads =
      reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads"));
  if (set_blas_threads == nullptr) return false;
  set_blas_threads(threads);
  return true;
}

}  // namespace static_runtime
