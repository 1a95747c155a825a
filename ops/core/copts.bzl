"""Compiler options shared by the kernel packages under //ops."""

# Plain loops the compiler vectorizes for each ISA (ops/core/per_isa.h): GCC's -O2
# cost model would leave them scalar (clang, the fuzzing build's compiler,
# has no such flag); no contraction (ATen rounds each add and multiply).
AUTO_VECTORIZED_LOOP_COPTS = ["-ffp-contract=off"] + select({
    "//third_party:built_by_clang": [],
    "//conditions:default": ["-fvect-cost-model=dynamic"],
})
