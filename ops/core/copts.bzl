"""Compiler options shared by the kernel packages under //ops."""

# Plain loops the compiler vectorizes for each ISA (ops/core/per_isa.h): GCC's -O2
# cost model would leave them scalar (clang, the fuzzing build's compiler,
# has no such flag); no contraction (ATen rounds each add and multiply).
AUTO_VECTORIZED_LOOP_COPTS = ["-ffp-contract=off"] + select({
    "//third_party:built_by_clang": [],
    "//conditions:default": ["-fvect-cost-model=dynamic"],
})

# at::parallel_for spreads its loop over ATen's OpenMP threads only in code
# compiled with OpenMP (ATen/ParallelOpenMP.h): without it, the loop runs on
# the calling thread whatever the intra-op thread count. GCC builds only:
# they use libgomp, LibTorch's own OpenMP runtime; clang's -fopenmp would
# bring LLVM's as a second one, and ThreadSanitizer cannot see libgomp's
# barriers (every parallel loop would be reported as a race).
ATEN_PARALLEL_COPTS = select({
    "//third_party:built_by_clang": [],
    "//third_party:thread_sanitizer": [],
    "//conditions:default": ["-fopenmp"],
})
ATEN_PARALLEL_LINKOPTS = ATEN_PARALLEL_COPTS
