// main() for benchmarks that compare kernels or runtimes: one intra-op
// thread (ATen's and OpenBLAS's), so ratios measure per-call overhead
// rather than parallelism.
#include "benchmark/benchmark.h"
#include "tools/intra_op_threads.h"

int main(int argc, char** argv) {
  static_runtime::SetIntraOpThreads(1);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
