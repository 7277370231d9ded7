// The machine's own floating-point peak, whatever BLAS it has: a short loop of independent fused
// multiply-adds in the widest vector instructions this CPU runs, on each of `threads` threads.
// `qkv bench` sets every result beside it, so that "% of peak" no longer depends on which kernel
// OpenBLAS happened to load.
#pragma once

#include <string>

namespace qkv::bench {

// The widest vector instructions with FMA this CPU runs: the widest of the kernel builds it runs
// (kernel_builds.hpp), with that build's name and register width; on x86-64 "avx512" (16 floats),
// "avx2" (8, with FMA) or "plain" (what the compiler makes of 4-float vectors), on arm64 "neon"
// (4, Advanced SIMD), elsewhere "plain".
struct vector_isa {
    std::string name;
    int lanes = 4;      // floats per instruction
    int bits = 128;     // register width
};
vector_isa widest_isa();
// The vector instructions qkv's own kernels run on now: the widest build unless --kernels (or a
// test) pinned a narrower one. The machine peak is measured in these, so that a bench pinned to
// AVX2 on an AVX-512 machine sets its figures beside the 256-bit peak, not the 512-bit one.
vector_isa kernels_isa();

struct machine_peak {
    double gflops = 0;  // single precision, all threads together
    int threads = 1;
    vector_isa isa;
};

// In kernels_isa()'s instructions. Best of three timings of about 0.1 s each: a busy moment cannot lower the peak below what the
// machine does, and percentages of it are never flattered.
machine_peak measure_machine_peak(int threads);

// The register width (bits) of an OpenBLAS kernel named by openblas_get_corename ("Haswell" 256,
// "SkylakeX" 512, "Nehalem" 128, …); 0 when the name is not known.
int kernel_bits(const std::string& corename);

}  // namespace qkv::bench
