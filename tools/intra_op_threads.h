// Sets how many threads one operator may use: ATen's intra-op threads and,
// when LibTorch runs on OpenBLAS (as Debian's does), OpenBLAS's threads,
// which at::set_num_threads leaves alone. Without the second, a benchmark
// with "one thread" still runs its matrix products on every core, and
// inter-op parallelism (forks, several callers) competes with them.
#ifndef STATIC_RUNTIME_TOOLS_INTRA_OP_THREADS_H_
#define STATIC_RUNTIME_TOOLS_INTRA_OP_THREADS_H_

namespace static_runtime {

// `threads` >= 1. Returns false if OpenBLAS is not loaded (only ATen's
// count was set).
bool SetIntraOpThreads(int threads);

}  // namespace static_runtime

#endif  // STATIC_RUNTIME_TOOLS_INTRA_OP_THREADS_H_
