"""Libraries compiled once per ISA that LibTorch 1.13 dispatches its CPU kernels to."""

# ATen's own flags for each ISA. Debian's LibTorch is built with AVX2 and
# AVX512 kernels; its dispatch stubs have those members.
ATEN_ISAS = {
    "avx2": ["-mavx2", "-mfma"],
    "avx512": ["-mavx512f", "-mavx512bw", "-mavx512vl", "-mavx512dq", "-mfma"],
}

def per_isa_libraries(name, hdrs, deps = []):
    """One cc_library `<name>_<isa>` per ISA, from `<name>_<isa>.cc`.

    Each is compiled with ATen's flags and CPU_CAPABILITY macros for its ISA
    (so at::vec::Vectorized<float> is that ISA's) and without floating-point
    contraction (ATen rounds each multiply and add on its own). GCC 12 warns,
    falsely, about the undefined vectors some AVX512 intrinsics start from.

    `deps` are added to each library's own. Returns the labels of the
    libraries.
    """
    labels = []
    for isa, flags in ATEN_ISAS.items():
        native.cc_library(
            name = name + "_" + isa,
            srcs = [name + "_" + isa + ".cc"],
            hdrs = hdrs,
            copts = flags + [
                "-ffp-contract=off",
                "-Wno-maybe-uninitialized",
            ],
            local_defines = [
                "CPU_CAPABILITY=" + isa.upper(),
                "CPU_CAPABILITY_" + isa.upper(),
            ],
            deps = deps + [
                "//third_party:sleef",
                "//third_party:torch",
            ],
        )
        labels.append(":" + name + "_" + isa)
    return labels
