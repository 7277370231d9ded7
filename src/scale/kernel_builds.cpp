// The table of kernel builds (kernel_builds.hpp), each with the test of whether this processor runs
// it, and the build in use: the tile kernels' and the row kernels', pinned together.
#include "qkv/kernel_builds.hpp"

#include <algorithm>

#include "qkv/row_kernels.hpp"
#include "qkv/tile_kernels.hpp"

#include "kernel_build_parts.hpp"

namespace qkv::attention {

namespace {

#if defined(__x86_64__)
// The AVX-512 code is compiled for F, VL, BW and DQ together (x86-64-v4): all four, or none.
// __builtin_cpu_supports reads CPUID and the XCR0 register, so a system that does not save the
// wider registers on a switch of threads counts as not having them.
bool runs_avx512() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
           __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512dq");
}
bool runs_avx2() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#endif
// the compiler's baseline for the architecture: SSE2 on x86-64, Advanced SIMD (NEON) on arm64
bool runs_anywhere() { return true; }

constexpr kernel_build builds[] = {
#if defined(__x86_64__)
    {"avx512", 512, "avx512f avx512vl avx512bw avx512dq", runs_avx512, &detail::avx512_tiles, &detail::avx512_rows,
     detail::fma_loop_avx512},
    {"avx2", 256, "avx2 fma", runs_avx2, &detail::avx2_tiles, &detail::avx2_rows, detail::fma_loop_avx2},
#endif
#if defined(__aarch64__)
    // Advanced SIMD is part of every arm64 processor. Only the tile kernels are its own: the plain
    // row kernels and peak loop already compute in its 128-bit registers there (GCC compiles
    // their generic vectors to it), so the two builds share them.
    {"neon", 128, "", runs_anywhere, &detail::neon_tiles, &detail::plain_rows, detail::fma_loop_plain},
#endif
    {"plain", 128, "", runs_anywhere, &detail::plain_tiles, &detail::plain_rows, detail::fma_loop_plain},
};

}  // namespace

std::span<const kernel_build> kernel_builds() { return builds; }

const kernel_build* find_kernel_build(std::string_view name) {
    const auto b = std::find_if(std::begin(builds), std::end(builds), [&](const kernel_build& k) { return k.name == name; });
    return b == std::end(builds) ? nullptr : b;
}

const kernel_build& widest_kernel_build() {
    for (const kernel_build& b : builds)
        if (b.cpu_runs()) return b;
    return builds[std::size(builds) - 1];  // plain, which runs anywhere
}

std::string kernel_build_choice() {
    std::string out;
    for (std::size_t i = 0; i < std::size(builds); ++i)
        out += (i == 0 ? "" : i + 1 == std::size(builds) ? " or " : ", ") + std::string(builds[i].name);
    return out;
}

std::string_view fused_kernels_in_use() { return detail::tile_kernels_in_use(); }

bool use_kernels(std::string_view build) {
    // both or neither: each refuses only a build that is not here or that this processor cannot
    // run, and that is the same test
    return detail::use_tile_kernels(build) && detail::use_row_kernels(build);
}

}  // namespace qkv::attention
