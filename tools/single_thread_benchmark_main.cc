// main() for benchmarks that compare kernels or runtimes: one intra-op
// thread and one OpenBLAS thread (unless OPENBLAS_NUM_THREADS is set), so
// ratios measure per-call overhead rather than parallelism.
#include <cstdlib>

#include "ATen/Parallel.h"
#include "benchmark/benchmark.h"

int main(int argc, char** argv) {
  setenv("OPENBLAS_NUM_THREADS", "1", /*overwrite=*/0);
  at::set_num_threads(1);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
