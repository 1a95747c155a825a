// STATIC_RUNTIME_PER_ISA: compiles a function once per x86 ISA the kernels
// are tuned for (AVX-512, AVX2, the baseline) and lets the loader pick the
// clone the CPU runs (GCC's target_clones, an ifunc). Under ThreadSanitizer
// it compiles the baseline alone: the ifunc resolver runs while the loader
// relocates the library, before TSan's runtime is initialized, and the
// instrumented resolver crashes there. Under clang (the sanitizer, layering
// and fuzzing builds) it does too: clang 14's clones of these loops ran
// AVX-512 instructions on an AVX2-only CPU (AMD Zen: SIGILL in
// //ops:out_variant_property_test under --config=checked).
#ifndef STATIC_RUNTIME_OPS_CORE_PER_ISA_H_
#define STATIC_RUNTIME_OPS_CORE_PER_ISA_H_

#if defined(__SANITIZE_THREAD__) || defined(__clang__)
#define STATIC_RUNTIME_PER_ISA
#else
#define STATIC_RUNTIME_PER_ISA __attribute__((target_clones("avx512f", "avx2", "default")))
#endif

#endif  // STATIC_RUNTIME_OPS_CORE_PER_ISA_H_
